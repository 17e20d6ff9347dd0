#!/usr/bin/env bash
# Installs the system packages Herald builds and tests with, when they are missing.
# Debian/Ubuntu (apt-get); needs root or sudo. The Swift toolchain itself must already be on PATH.
set -euo pipefail

packages=(
  pkg-config
  libsqlite3-dev      # SQLite, through GRDB
  libssl-dev          # TLS and crypto (push gateway)
  libnghttp2-dev      # HTTP/2 (push gateway)
  libcurl4            # FoundationNetworking, used by the CLI's HTTP client
  tzdata              # IANA time zones
  curl
  openssl             # the openssl CLI: Certs/generate.sh and TLS interop tests
  nghttp2-server      # nghttpd: an HTTP/2 server we did not write, for interop tests
  nghttp2-client      # nghttp and h2load: interop tests and the push benchmark's reference
  wrk                 # HTTP load for the schedule-throughput benchmark
  postgresql          # a real PostgreSQL for the several-node backend's tests (initdb per test)
  chromium            # headless browser for the status pages' end-to-end test (scripts/browser)
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q "${missing[@]}"
fi

command -v swift >/dev/null || { echo "swift is not on PATH (install the Swift 6 toolchain first)" >&2; exit 1; }

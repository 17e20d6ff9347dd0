#!/usr/bin/env bash
# Runs a browser scenario with cdp_check.py, in a venv under .build that is made on first use
# (and again whenever requirements.txt changes). Arguments go to cdp_check.py; see its --help.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${HERALD_BROWSER_VENV:-$root/.build/browser-venv}"
mkdir -p "$(dirname "$venv")"

# Locked: two test runs starting at once must not build the same venv over each other.
(
  flock 9
  if [ ! -x "$venv/bin/python" ] || ! cmp -s "$here/requirements.txt" "$venv/requirements.installed"; then
    echo "making the browser venv in $venv" >&2
    command -v python3 >/dev/null || { echo "browser scenario could not run: no python3 on PATH" >&2; exit 2; }
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt" >&2 || {
      echo "browser scenario could not run: pip could not install $here/requirements.txt" >&2
      rm -rf "$venv"
      exit 2
    }
    cp "$here/requirements.txt" "$venv/requirements.installed"
  fi
) 9>"$venv.lock"

exec "$venv/bin/python" "$here/cdp_check.py" "$@"

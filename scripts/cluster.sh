#!/usr/bin/env bash
# Several Herald nodes on one PostgreSQL, on this machine, for trying it out.
#
#   scripts/cluster.sh [NODES]      (default 3)
#
# Starts a throwaway PostgreSQL (initdb into a temp dir, as the unprivileged `postgres` account
# when run as root), the APNs sandbox, and NODES `herald serve` processes sharing the database,
# each on a free port, with the demo app com.example.alarm pushing into the sandbox. Ctrl-C stops
# everything and removes the temp dir.
set -euo pipefail
nodes=${1:-3}
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build --product herald
herald="$(swift build --show-bin-path)/herald"

work=$(mktemp -d /tmp/herald-cluster.XXXXXX)
pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
as_postgres=()
if [ "$(id -u)" -eq 0 ]; then
  chown postgres "$work"
  as_postgres=(runuser -u postgres --)
fi
pids=()

cleanup() {
  trap - INT TERM EXIT
  echo "stopping..."
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$work/pg" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup INT TERM EXIT

# A port nothing listens on (a connection to it is refused).
free_port() {
  local port
  while true; do
    port=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
}

# Waits for a line matching $2 in file $1 and prints it.
await_line() {
  for _ in $(seq 1 300); do
    if grep -m 1 "$2" "$1" 2>/dev/null; then return; fi
    sleep 0.1
  done
  echo "timed out waiting for '$2' in $1:" >&2
  cat "$1" >&2
  exit 1
}

pg_port=$(free_port)
"${as_postgres[@]}" "$pg_bin/initdb" -D "$work/pg" -U herald --auth=trust >"$work/initdb.log"
"${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w \
  -o "-p $pg_port -k $work -c listen_addresses=127.0.0.1" start >/dev/null
"${as_postgres[@]}" "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U herald herald
url="postgres://herald@127.0.0.1:$pg_port/herald"
echo "PostgreSQL: $url"

"$herald" sandbox run --listen 127.0.0.1:0 --admin 127.0.0.1:0 --certs Certs --log-level warning \
  >"$work/sandbox.out" 2>&1 &
pids+=($!)
sandbox_line=$(await_line "$work/sandbox.out" "herald sandbox listening on")
sandbox_url=$(echo "$sandbox_line" | sed -E 's/.*listening on (https:[^ ]+).*/\1/')
echo "$sandbox_line"

for i in $(seq 1 "$nodes"); do
  HERALD_STORAGE_URL="$url" "$herald" serve --listen 127.0.0.1:0 --node-id "node-$i" --data-dir "$work/node-$i" \
    >"$work/node-$i.out" 2>"$work/node-$i.log" &
  pids+=($!)
  line=$(await_line "$work/node-$i.out" "herald listening on")
  echo "node-$i: ${line#herald listening on } (log: $work/node-$i.log)"
  [ "$i" -eq 1 ] && first="${line#herald listening on }"
done

# The demo app pushes into the sandbox; any node can be asked, they share everything.
curl -sf -X PUT "$first/v1/apps/com.example.alarm" -H 'content-type: application/json' -d @- >/dev/null <<JSON
{"push": {"environment": "$sandbox_url", "caFile": "$PWD/Certs/dev-ca.pem",
  "auth": {"type": "token", "teamId": "DEVTEAM001", "keyId": "DEVKEY0001", "keyFile": "$PWD/Certs/dev-apns-key.p8"}}}
JSON
echo "demo app com.example.alarm pushes to the sandbox. Ctrl-C stops everything."
wait

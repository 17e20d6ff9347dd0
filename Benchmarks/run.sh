#!/usr/bin/env bash
# Herald benchmarks: builds, runs the in-process scheduler and coalescer benchmarks (herald-bench),
# the push gateway benchmark (herald-bench against `herald sandbox`, beside h2load), and the HTTP
# schedule and coalescer benchmarks (wrk and herald-bench against a server it starts), and prints
# one table.
#
#   bash Benchmarks/run.sh           full sizes, release build in .build-release
#   bash Benchmarks/run.sh --smoke   tiny sizes, debug build in .build (for CI)
#   bash Benchmarks/run.sh --cluster only the several-node benchmark (make bench-cluster) and the
#                                    PostgreSQL burst beside a bare SQL loop, release
#
# Progress goes to stderr; the table goes to stdout. Every speed is shown next to a reference
# measured on the same machine in the same run, with the ratio measured ÷ reference.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)

SMOKE=0
CLUSTER_ONLY=0
case "${1:-}" in
  --smoke) SMOKE=1 ;;
  --cluster) CLUSTER_ONLY=1 ;;
  "") ;;
  *) echo "usage: bash Benchmarks/run.sh [--smoke|--cluster]" >&2; exit 2 ;;
esac

if [[ $SMOKE == 1 ]]; then
  BUILD=(swift build)
  BIN=$ROOT/.build/debug
  BENCH_SIZES=(--notifications 10000 --devices 100 --burst 1000 --rate 1000 --seconds 1 --rounds 1)
  DELIVERY_SIZES=(--rate 500 --seconds 1)
  COALESCE_SIZES=(--events 20000 --event-devices 100 --store-events 2000 --rounds 1)
  PUSH_SIZES=(--pushes 2000 --streams 100 --push-connections 1,4)
  SHORT_PUSH_SIZES=()
  CHANNEL_SIZES=(--channel-messages 1000 --streams 100 --push-connections 1)
  ACTIVITY_SIZES=(--activity-pushes 200 --activity-rate 200)
  COALESCE_HTTP_SIZES=(--event-devices 100 --events 4000 --wakes 50 --http-seconds 1)
  HTTP_SECONDS=1
  HTTP_DEVICES=200
  CLUSTER_SIZES=(--rate 100 --seconds 1 --burst 500)
  POSTGRES_BURST_SIZES=(--burst 1000 --rounds 1)
  POSTGRES_SCHEDULE_SIZES=(--devices 200 --seconds 1)
  POSTGRES_XMIN_SIZES=(--xmin-rate 50 --xmin-hold 6)
  SQLITE_BURST_SIZES=(--burst 2000)
  MODE_LABEL="smoke, debug build"
else
  BUILD=(swift build -c release --scratch-path .build-release)
  BIN=$ROOT/.build-release/release
  BENCH_SIZES=(--notifications 1000000 --devices 10000 --burst 100000 --rate 10000 --seconds 10 --rounds 3)
  DELIVERY_SIZES=(--rate 10000 --seconds 60)
  COALESCE_SIZES=(--events 1000000 --event-devices 10000 --store-events 200000 --rounds 3)
  PUSH_SIZES=(--pushes 1000000 --streams 100 --push-connections 1,4)
  # Issue 23 wants the client at h2load's pace over short runs too, where starting the
  # connection (TLS handshake, provider token, the first stream) weighs more.
  SHORT_PUSH_SIZES=(--pushes 100000 --streams 100 --push-connections 1,4 --push-targets nghttpd)
  CHANNEL_SIZES=(--channel-messages 100000 --streams 100 --push-connections 1,4)
  ACTIVITY_SIZES=(--activity-pushes 5000 --activity-rate 1000)
  COALESCE_HTTP_SIZES=(--event-devices 10000 --events 1000000 --wakes 2000 --http-seconds 10)
  HTTP_SECONDS=10
  HTTP_DEVICES=4000
  CLUSTER_SIZES=(--rate 1000 --seconds 10 --burst 20000)
  POSTGRES_BURST_SIZES=(--burst 20000 --rounds 3)
  POSTGRES_SCHEDULE_SIZES=(--devices 4000 --seconds 10)
  POSTGRES_XMIN_SIZES=(--xmin-rate 150 --xmin-hold 150)
  SQLITE_BURST_SIZES=(--burst 100000)
  MODE_LABEL="release build"
fi
WRK_THREADS=2
WRK_CONNECTIONS=32

say() { echo "run.sh: $*" >&2; }

command -v wrk >/dev/null || { say "wrk is missing (Debian: apt-get install wrk)"; exit 1; }
command -v h2load >/dev/null || { say "h2load is missing (Debian: apt-get install nghttp2-client)"; exit 1; }
command -v curl >/dev/null || { say "curl is missing"; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/herald-bench.XXXXXX")
SERVER_PID=""
stop_server() {
  if [[ -n $SERVER_PID ]]; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
  fi
}
cleanup() { stop_server; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- build ---------------------------------------------------------------------------------
# HERALD_BENCH_PREBUILT=1 (make test): the build is done and tests may be running its binaries.
if [[ ${HERALD_BENCH_PREBUILT:-0} != 1 ]]; then
  say "building herald-bench and herald (${MODE_LABEL})"
  "${BUILD[@]}" --product herald-bench >&2
  "${BUILD[@]}" --product herald >&2
fi
[[ -x $BIN/herald && -x $BIN/herald-bench ]] || { say "FAILED: $BIN/herald or herald-bench is not built"; exit 1; }

ROWS=$WORK/rows.tsv
: >"$ROWS"

# rows NAME COMMAND...: runs one benchmark and keeps the ROW lines it prints. A benchmark that
# fails, or prints no row, fails the whole run: a table with a row missing judges nothing.
rows() {
  local name=$1 before after
  shift
  before=$(wc -l <"$ROWS")
  say "running $name: $*"
  "$@" | { grep '^ROW' || true; } >>"$ROWS"
  after=$(wc -l <"$ROWS")
  if ((after == before)); then
    say "FAILED: $name printed no row"
    exit 1
  fi
}

# ---- several nodes on PostgreSQL (real herald serve processes) ------------------------------
# herald-bench starts a throwaway PostgreSQL, loads each setup's schedule, starts the nodes, and
# reads the fire log: 1, 2 and 3 nodes on PostgreSQL beside one node on SQLite.
cluster_benchmark() {
  rows cluster "$BIN/herald-bench" cluster "${CLUSTER_SIZES[@]}" --herald "$BIN/herald" --scratch "$WORK"
}

# ---- one node's PostgreSQL cost per occurrence, beside a bare SQL loop (in process) -----------
postgres_burst_benchmark() {
  rows postgres-burst "$BIN/herald-bench" postgres-burst "${POSTGRES_BURST_SIZES[@]}" --scratch "$WORK"
}

# ---- schedules through the API on one PostgreSQL node, beside pgbench (real herald serve) ------
postgres_schedule_benchmark() {
  rows postgres-schedule "$BIN/herald-bench" postgres-schedule "${POSTGRES_SCHEDULE_SIZES[@]}" --herald "$BIN/herald" \
    --wrk-script "$ROOT/Benchmarks/wrk/schedule.lua" --scratch "$WORK"
}

# ---- lateness while an old snapshot holds vacuum back, 2 nodes (real herald serve) ------------
postgres_xmin_benchmark() {
  rows postgres-xmin "$BIN/herald-bench" postgres-xmin "${POSTGRES_XMIN_SIZES[@]}" --herald "$BIN/herald" --scratch "$WORK"
}

if [[ $CLUSTER_ONLY == 1 ]]; then
  cluster_benchmark
  postgres_burst_benchmark
  postgres_schedule_benchmark
  postgres_xmin_benchmark
  echo "Herald cluster benchmark — $MODE_LABEL, $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ); ratio = measured ÷ reference"
  echo
  "$BIN/herald-bench" table --rows "$ROWS"
  exit 0
fi

# ---- in-process benchmarks -----------------------------------------------------------------
rows all "$BIN/herald-bench" all "${BENCH_SIZES[@]}" --scratch "$WORK"
rows sqlite-burst "$BIN/herald-bench" sqlite-burst "${SQLITE_BURST_SIZES[@]}" --scratch "$WORK"
rows slow-peer "$BIN/herald-bench" slow-peer --certs "$ROOT/Certs" --scratch "$WORK"
rows delivery-load "$BIN/herald-bench" delivery-load "${DELIVERY_SIZES[@]}" --certs "$ROOT/Certs" --scratch "$WORK"
rows coalesce "$BIN/herald-bench" coalesce "${COALESCE_SIZES[@]}" --scratch "$WORK"

# ---- push gateway benchmark (sandbox, h2load) ----------------------------------------------
# herald-bench starts `herald sandbox` itself, runs h2load and its own APNs client against it,
# and stops it.
rows push "$BIN/herald-bench" push "${PUSH_SIZES[@]}" --herald "$BIN/herald" --certs "$ROOT/Certs" --scratch "$WORK"
# Without --herald: the client rows only (the /v1/push row is the 1M run's).
if ((${#SHORT_PUSH_SIZES[@]} > 0)); then
  rows push-short "$BIN/herald-bench" push "${SHORT_PUSH_SIZES[@]}" --certs "$ROOT/Certs" --scratch "$WORK"
fi

# ---- FCM and Web Push (sandbox, h2load, a bare OpenSSL loop) --------------------------------
# The bare loop is C against the system OpenSSL, built here with the optimiser on.
C_COMPILER=$(command -v cc || command -v clang || true)
[[ -n $C_COMPILER ]] || { say "no C compiler for the Web Push floor (Debian: apt-get install gcc)"; exit 1; }
"$C_COMPILER" -O2 -o "$WORK/webpush-floor" "$ROOT/Benchmarks/webpush-floor/floor.c" -lcrypto
rows channels "$BIN/herald-bench" channels "${CHANNEL_SIZES[@]}" --herald "$BIN/herald" \
  --webpush-floor "$WORK/webpush-floor" --certs "$ROOT/Certs" --scratch "$WORK"

rows live-activities "$BIN/herald-bench" live-activities "${ACTIVITY_SIZES[@]}" --herald "$BIN/herald" \
  --certs "$ROOT/Certs" --scratch "$WORK"

# ---- HTTP schedule benchmark ---------------------------------------------------------------
free_port() {
  local port
  for _ in $(seq 1 100); do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  return 1
}

# wait_healthy PID PORT SECONDS: true once /healthz answers; false if the process exits first.
wait_healthy() {
  local pid=$1 port=$2 tries=$(($3 * 10))
  for _ in $(seq 1 "$tries"); do
    kill -0 "$pid" 2>/dev/null || return 1
    curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" && return 0
    sleep 0.1
  done
  return 1
}

# start_server SYNCHRONOUS [NAME]: `herald serve` on a fresh data dir and free port; sets
# SERVER_PID, PORT and SERVER_DATA. A server that does not come up fails the run (a port taken
# between free_port and bind is tried again, up to three times).
start_server() {
  local sync=$1 name=${2:-$1} data log
  data=$WORK/http-$name
  log=$WORK/server-$name.log
  SERVER_DATA=$data
  for attempt in 1 2 3; do
    PORT=$(free_port)
    HERALD_STORAGE_SYNCHRONOUS=$sync HERALD_LOG_LEVEL=warning \
      "$BIN/herald" serve --listen "127.0.0.1:$PORT" --data-dir "$data" >"$log" 2>&1 &
    SERVER_PID=$!
    if wait_healthy "$SERVER_PID" "$PORT" 60; then return 0; fi
    stop_server
    say "herald serve did not come up on port $PORT (attempt $attempt): $(tail -c 300 "$log")"
  done
  say "FAILED: herald serve did not start"
  exit 1
}

# register_devices: the app, then dev-0…dev-(HTTP_DEVICES-1), over one keep-alive curl.
register_devices() {
  local base="http://127.0.0.1:$PORT/v1/apps/bench.app" config=$WORK/devices.curl codes bad
  curl -sf -o /dev/null -X PUT -H 'Content-Type: application/json' -d '{}' "$base"
  for ((i = 0; i < HTTP_DEVICES; i++)); do
    printf 'url = "%s/devices/dev-%d"\noutput = "/dev/null"\n' "$base" "$i"
  done >"$config"
  codes=$(curl -s -X PUT -H 'Content-Type: application/json' -d '{"timeZone":"Europe/Paris"}' \
    -w '%{http_code}\n' -K "$config")
  bad=$(grep -cvE '^20[01]$' <<<"$codes" || true)
  [[ $bad == 0 ]] || { say "registering devices: $bad of $HTTP_DEVICES failed"; return 1; }
}

# wrk_field OUTPUT: requests/s, total requests, non-2xx, socket errors (space-separated).
wrk_numbers() {
  awk '
    /Requests\/sec:/ { rps = $2 }
    / requests in / { total = $1 }
    /Non-2xx or 3xx responses:/ { non2xx = $NF }
    /Socket errors:/ { gsub(/,/, ""); errors = $4 + $6 + $8 + $10 }
    END { printf "%s %d %d %d\n", rps, total, non2xx, errors }'
}

# schedule_benchmark SYNCHRONOUS LABEL GOAL: GOAL is the least POST/s ÷ GET /healthz/s (0: none).
schedule_benchmark() {
  local sync=$1 label=$2 goal=$3 out health post h_rps p_rps p_total p_non2xx p_errors conflicts ratio met
  say "HTTP: starting a server with synchronous=$sync"
  start_server "$sync"
  register_devices
  say "HTTP: wrk GET /healthz for ${HTTP_SECONDS}s (reference)"
  out=$(wrk -t"$WRK_THREADS" -c"$WRK_CONNECTIONS" -d"${HTTP_SECONDS}s" "http://127.0.0.1:$PORT/healthz")
  read -r h_rps _ _ _ <<<"$(wrk_numbers <<<"$out")"
  say "HTTP: wrk POST notifications for ${HTTP_SECONDS}s over $HTTP_DEVICES devices"
  out=$(wrk -t"$WRK_THREADS" -c"$WRK_CONNECTIONS" -d"${HTTP_SECONDS}s" -s "$ROOT/Benchmarks/wrk/schedule.lua" \
    "http://127.0.0.1:$PORT" -- "$HTTP_DEVICES" "$WRK_THREADS")
  read -r p_rps p_total p_non2xx p_errors <<<"$(wrk_numbers <<<"$out")"
  conflicts=$(awk '/^status 409:/ { print $3 }' <<<"$out")
  stop_server
  ((p_total > 0)) || { say "FAILED: wrk sent no schedule ($label)"; exit 1; }
  if ((p_total > HTTP_DEVICES * 128)); then
    say "warning: $p_total POSTs exceed the $((HTTP_DEVICES * 128)) the devices can hold; raise HTTP_DEVICES"
  fi
  awk -v OFS='\t' -v name="schedule POST via HTTP (herald serve), $label" -v post="$p_rps" -v health="$h_rps" \
    -v total="$p_total" -v non2xx="$p_non2xx" -v conflicts="${conflicts:-0}" -v errors="$p_errors" -v goal="$goal" '
    function group(x,   s, r) { s = sprintf("%.0f", x); r = ""
      while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
      return s r }
    BEGIN {
      measured = group(post) " POST/s (non-2xx " non2xx ", of which 409: " conflicts "; socket errors " errors "; of " group(total) ")"
      ratio = health > 0 ? sprintf("%.2f×", post / health) : "—"
      met = (total > 0 && (non2xx + errors) * 1000 <= total && (goal == 0 || post >= goal * health)) ? "yes" : "NO"
      target = (goal > 0 ? "≥ " sprintf("%.2f", goal) "×, " : "") "non-2xx ≈ 0 (≤ 0.1%)"
      print "ROW", name, measured, group(health) " GET/s /healthz, same server", ratio, target, met
    }' >>"$ROWS"
}

schedule_benchmark normal "WAL + synchronous=NORMAL (default; survives kill -9)" 0.3
schedule_benchmark full "WAL + HERALD_STORAGE_SYNCHRONOUS=full (survives power loss)" 0

# schedule_floor_benchmark: the same route on Hummingbird + GRDB with none of Herald
# (`herald-bench schedule-floor`), beside its own /healthz: what the NORMAL row could reach at
# best on this stack.
schedule_floor_benchmark() {
  local out=$WORK/floor.out log=$WORK/floor.log port="" h_rps p_rps p_total p_non2xx p_errors
  "$BIN/herald-bench" schedule-floor --data-dir "$WORK/floor" --devices "$HTTP_DEVICES" >"$out" 2>"$log" &
  SERVER_PID=$!
  for _ in $(seq 1 600); do
    port=$(sed -n 's|^schedule floor listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$out")
    [[ -n $port ]] && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  [[ -n $port ]] || { say "FAILED: the schedule floor did not start: $(tail -c 300 "$log")"; stop_server; exit 1; }
  say "HTTP: the schedule floor (Hummingbird + GRDB, no Herald): wrk GET /healthz, then POST, ${HTTP_SECONDS}s each"
  read -r h_rps _ _ _ <<<"$(wrk -t"$WRK_THREADS" -c"$WRK_CONNECTIONS" -d"${HTTP_SECONDS}s" "http://127.0.0.1:$port/healthz" | wrk_numbers)"
  read -r p_rps p_total p_non2xx p_errors <<<"$(wrk -t"$WRK_THREADS" -c"$WRK_CONNECTIONS" -d"${HTTP_SECONDS}s" \
    -s "$ROOT/Benchmarks/wrk/schedule.lua" "http://127.0.0.1:$port" -- "$HTTP_DEVICES" "$WRK_THREADS" | wrk_numbers)"
  stop_server
  ((p_total > 0)) || { say "FAILED: wrk sent no schedule to the floor"; exit 1; }
  awk -v OFS='\t' -v post="$p_rps" -v health="$h_rps" -v total="$p_total" -v bad="$((p_non2xx + p_errors))" '
    function group(x,   s, r) { s = sprintf("%.0f", x); r = ""
      while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
      return s r }
    BEGIN {
      print "ROW", "schedule floor: the same route on Hummingbird + GRDB, no Herald (a write transaction each, WAL + synchronous=NORMAL)",
        group(post) " POST/s (non-2xx or socket errors " bad " of " group(total) ")",
        group(health) " GET/s /healthz, same floor server", sprintf("%.2f×", post / health),
        "— (what the NORMAL row could reach at best on this stack)", "n/a"
    }' >>"$ROWS"
}
schedule_floor_benchmark

# ---- HTTP coalescer benchmark --------------------------------------------------------------
# A fresh server; herald-bench registers the asleep devices, sends the events, reads the
# server's memory (by pid) and store (by data dir), runs wrk (wrk/events.lua), and times wakes.
say "HTTP: starting a server for the coalescer"
start_server normal coalesce
rows coalesce-http "$BIN/herald-bench" coalesce-http "${COALESCE_HTTP_SIZES[@]}" --port "$PORT" --server-pid "$SERVER_PID" \
  --data-dir "$SERVER_DATA" --server-label "herald serve" --events-script "$ROOT/Benchmarks/wrk/events.lua" \
  --scratch "$WORK"
stop_server

# The full-size cluster run is `make bench-cluster`; the smoke run checks its code path here.
[[ $SMOKE == 1 ]] && cluster_benchmark
postgres_burst_benchmark
postgres_schedule_benchmark
postgres_xmin_benchmark

# ---- the table -----------------------------------------------------------------------------
echo "Herald benchmarks — $MODE_LABEL, $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ); ratio = measured ÷ reference"
echo
"$BIN/herald-bench" table --rows "$ROWS"

#!/usr/bin/env bash
# Runs every check after one build, in two lanes side by side. The end-to-end suites spend most
# of their time waiting on timers and child processes (about 9 CPU-minutes in 23), so two lanes
# share the two cores without starving each other:
#   lane e2e:   the end-to-end suites (real herald processes), one test at a time;
#   lane other: the pure suites (in parallel), the other serial suites, the fault checker's
#               self-test, the fault harness's short run, and the benchmarks' smoke run.
# Each lane's output goes to a log, printed whole when both are done; the exit status is
# non-zero when any step of either lane failed.
#
#   bash scripts/test-lanes.sh     (make test builds first, then runs this)
set -uo pipefail
cd "$(dirname "$0")/.."

PURE='^(HeraldCoreTests|HeraldCryptoTests|HeraldStorageTests|HeraldSchedulerTests)\.'
E2E='^HeraldEndToEndTests\.'
# Both lanes run the one build's test bundle directly: two `swift test` processes would contend
# for SwiftPM's build database, and nothing may build (or relink herald) while the other runs.
# Every suite is Swift Testing's.
BUNDLE=.build/debug/HeraldPackageTests.xctest
[[ -x $BUNDLE ]] || { echo "$BUNDLE is not built: run swift build --build-tests first" >&2; exit 1; }
TEST=(env NO_COLOR=1 "$BUNDLE" --testing-library swift-testing)

LOGS=$(mktemp -d "${TMPDIR:-/tmp}/herald-lanes.XXXXXX")
trap 'rm -rf "$LOGS"' EXIT

# step NAME COMMAND...: runs one step of a lane, and records its name when it fails.
step() {
  local name=$1
  shift
  echo "=== $name: $*"
  local started=$SECONDS
  if "$@"; then
    echo "=== $name: passed in $((SECONDS - started)) s"
  else
    echo "=== $name: FAILED in $((SECONDS - started)) s"
    echo "$name" >>"$LOGS/failed"
  fi
}

lane_e2e() {
  step "end-to-end suites" "${TEST[@]}" --no-parallel --filter "$E2E"
}

lane_other() {
  step "pure suites" "${TEST[@]}" --filter "$PURE"
  step "serial suites" "${TEST[@]}" --no-parallel --skip "$PURE" --skip "$E2E"
  step "fault checker self-test" python3 -m unittest discover -s scripts/faults -p 'test_*.py'
  step "fault harness (short)" python3 scripts/faults/run.py --scenario all --seeds 1 --quick
  step "benchmarks (smoke)" env HERALD_BENCH_PREBUILT=1 bash Benchmarks/run.sh --smoke
}

started=$SECONDS
lane_e2e >"$LOGS/e2e.log" 2>&1 &
e2e=$!
lane_other >"$LOGS/other.log" 2>&1 &
other=$!
wait "$e2e" "$other"

for lane in other e2e; do
  echo "################ lane $lane"
  cat "$LOGS/$lane.log"
done
echo "################ both lanes done in $((SECONDS - started)) s"
grep '^=== .*: \(passed\|FAILED\) in' "$LOGS/other.log" "$LOGS/e2e.log" | sed 's/^[^:]*:/  /'
if [[ -s $LOGS/failed ]]; then
  echo "FAILED: $(paste -sd, "$LOGS/failed")"
  exit 1
fi
echo "every step passed"

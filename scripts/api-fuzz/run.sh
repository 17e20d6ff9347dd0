#!/usr/bin/env bash
# Fuzzes the HTTP API of a built herald from its own /openapi.yaml with schemathesis.
#
# Usage: scripts/api-fuzz/run.sh [HERALD_BINARY]   (or set HERALD_BINARY)
#
# Checks: no 5xx, every response documented (status, content type, body schema), every 4xx is
# {"error": {"reason", "message"}}, and a refused request (4xx) changes nothing stored.
#
# Environment:
#   HERALD_FUZZ_MAX_EXAMPLES  examples per operation (default 50)
#   HERALD_FUZZ_SEED          generation seed (default 20261124)
#   HERALD_FUZZ_TIMEOUT       seconds before schemathesis is stopped (default 900)
#   HERALD_FUZZ_EXTRA_ARGS    more schemathesis options, e.g. "--report ndjson"
#   HERALD_FUZZ_SCHEMA        a schema file to use instead of the server's /openapi.yaml; the
#                             word "source" takes the text of OpenAPIDocument.swift, to try
#                             document changes without rebuilding
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
binary="${1:-${HERALD_BINARY:-}}"
if [[ -z "$binary" ]]; then
    echo "usage: $0 HERALD_BINARY (or set HERALD_BINARY)" >&2
    exit 2
fi
if [[ ! -x "$binary" ]]; then
    echo "error: $binary is not an executable herald" >&2
    exit 2
fi
max_examples="${HERALD_FUZZ_MAX_EXAMPLES:-50}"
seed="${HERALD_FUZZ_SEED:-20261124}"

# The venv lives under .build so it is ignored like other build products, and is rebuilt when
# the pinned requirements change.
venv="$repo/.build/api-fuzz-venv"
stamp="$venv/.requirements.sha256"
wanted="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [[ ! -x "$venv/bin/schemathesis" || "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]]; then
    echo "== preparing $venv"
    rm -rf "$venv"
    mkdir -p "$repo/.build"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
    echo "$wanted" > "$stamp"
fi
py="$venv/bin/python"

work="$(mktemp -d "${TMPDIR:-/tmp}/herald-api-fuzz.XXXXXX")"
server_pid=""
cleanup() {
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A free loopback port, asked of the kernel; without API keys herald only serves loopback.
port="$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
base="http://127.0.0.1:$port"
# An admin key, so schemathesis also checks that calls without it are refused (401); rate
# limits high enough that fuzzing measures behaviour, not the limiter. Other HERALD_* settings
# of the caller's environment are dropped so the run is the same everywhere.
admin_key="fuzz-admin-key-$RANDOM$RANDOM"
unset_herald=()
while IFS= read -r name; do unset_herald+=(-u "$name"); done < <(compgen -e | grep '^HERALD_' || true)
env "${unset_herald[@]}" \
    HERALD_AUTH_ADMIN_KEYS="$admin_key" \
    HERALD_LIMITS_RATE_PER_SECOND=100000 HERALD_LIMITS_RATE_BURST=100000 \
    HERALD_HOOKS_RATE_PER_SECOND=100000 HERALD_HOOKS_RATE_BURST=100000 \
    "$binary" serve --listen "127.0.0.1:$port" --data-dir "$work/data" > "$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 150); do
    if grep -q "herald listening on" "$work/server.log" 2>/dev/null; then break; fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
        echo "error: herald exited before listening:" >&2
        cat "$work/server.log" >&2
        exit 1
    fi
    sleep 0.2
done
if ! grep -q "herald listening on" "$work/server.log"; then
    echo "error: herald did not start listening within 30 s:" >&2
    cat "$work/server.log" >&2
    exit 1
fi
db="$work/data/herald.sqlite"
[[ -f "$db" ]] || { echo "error: no database at $db" >&2; exit 1; }

"$py" "$here/seed.py" "$base" "$admin_key"

schema=("$base/openapi.yaml")
case "${HERALD_FUZZ_SCHEMA:-}" in
    "") ;;
    source)
        # The document as the sources hold it (the server embeds the same file).
        cp "$repo/Sources/HeraldAPI/openapi.yaml" "$work/openapi.yaml"
        schema=("$work/openapi.yaml" --url "$base") ;;
    *) schema=("$HERALD_FUZZ_SCHEMA" --url "$base") ;;
esac

echo "== fuzzing $base (herald: $binary, $max_examples examples per operation, seed $seed)"
status=0
# A hung request or generator must not hold the caller (a test run) forever.
limit=()
if command -v timeout > /dev/null; then limit=(timeout --kill-after=15 "${HERALD_FUZZ_TIMEOUT:-900}"); fi
# The event stream is excluded: it answers with a stream that never ends while the device is
# connected, so a generated call can only time out, and closing it changes the device's state.
# The admin backup is excluded too: it writes a file wherever its absolute path says, and this
# run's server may run as root.
# positive_data_acceptance is off: the schema cannot say which strings are IANA zones, hex
# tokens or dates in the future, so schema-valid input is often rightly refused.
(cd "$work" && PYTHONDONTWRITEBYTECODE=1 HERALD_FUZZ_DB="$db" HERALD_FUZZ_BASE="$base" HERALD_FUZZ_KEY="$admin_key" SCHEMATHESIS_HOOKS=hooks PYTHONPATH="$here" \
    ${limit[@]+"${limit[@]}"} "$venv/bin/schemathesis" run "${schema[@]}" \
        --checks all \
        --exclude-checks positive_data_acceptance \
        --exclude-path-regex '/events/stream$|/admin/backup$' \
        --phases examples,coverage,fuzzing,stateful \
        --max-examples "$max_examples" \
        --seed "$seed" \
        --generation-database none \
        --workers 1 \
        --header "Authorization: Bearer $admin_key" \
        --request-timeout 20 \
        --no-color \
        ${HERALD_FUZZ_EXTRA_ARGS:-} \
        --suppress-health-check all) || status=$?

if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "error: herald died during the run; its log:" >&2
    tail -n 50 "$work/server.log" >&2
    status=1
fi
if [[ "$status" -ne 0 ]]; then
    echo "== herald log (last 40 lines)"
    tail -n 40 "$work/server.log"
fi
exit "$status"

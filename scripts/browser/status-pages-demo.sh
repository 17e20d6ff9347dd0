#!/usr/bin/env bash
# Runs status-pages.json by hand against a running server (by default `make run`'s, whose demo app
# pushes into the APNs sandbox): registers a device, sends one push, schedules a notification due
# in about 8 s, then drives the browser. Screenshots go to $HERALD_UI_SCREENSHOT_DIR, else
# .build/ui-screenshots.
#   HERALD_SERVER   default http://127.0.0.1:8580
#   HERALD_API_KEY  sent as a bearer key, to the API and to the pages, when set
#   HERALD_APP      default com.example.alarm
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
server="${HERALD_SERVER:-http://127.0.0.1:8580}"
app="${HERALD_APP:-com.example.alarm}"
device="browser-phone"
notification="browser-check-$(date +%s)"
shots="${HERALD_UI_SCREENSHOT_DIR:-$root/.build/ui-screenshots}"
token="$(printf 'b7%.0s' $(seq 28))00000001"
auth=()
authorization=""
if [ -n "${HERALD_API_KEY:-}" ]; then
  auth=(-H "Authorization: Bearer $HERALD_API_KEY")
  authorization="Bearer $HERALD_API_KEY"
fi

call() { # METHOD PATH JSON
  curl -fsS -X "$1" "$server$2" "${auth[@]}" -H 'Content-Type: application/json' -d "$3" >/dev/null
}
call PUT "/v1/apps/$app/devices/$device" "{\"timeZone\":\"UTC\",\"token\":\"$token\"}"
call POST /v1/push "{\"notifications\":[{\"app\":\"$app\",\"tokens\":[\"$token\"],\"aps\":{\"alert\":{\"title\":\"Hi\",\"body\":\"there\"}}}]}"
fire="$(date -u -d '+8 seconds' +%Y-%m-%dT%H:%M:%SZ)"
call POST "/v1/apps/$app/devices/$device/notifications" \
  "{\"id\":\"$notification\",\"fireDate\":\"$fire\",\"repeat\":{\"unit\":\"minute\",\"count\":2},\"alert\":{\"title\":\"Herald\",\"body\":\"Browser check\"}}"

exec "$here/run.sh" "$here/status-pages.json" --base-url "$server" \
  --var "app=$app" --var "device=$device" --var "notification=$notification" \
  --var "shots=$shots" --var "authorization=$authorization"

"""The state fuzzing starts from, so that calls reach past 404s: app com.example.fuzz, its
device fuzz-device with notification fuzz-note, and hook fuzz-hook. The OpenAPI document's
path examples name these.

Usage: seed.py BASE_URL ADMIN_KEY   (hooks.py also calls seed() to restore what a fuzzed
DELETE or PUT removed)
"""

import sys

import requests

APP = "com.example.fuzz"
DEVICE = "fuzz-device"
NOTIFICATION = "fuzz-note"
HOOK = "fuzz-hook"
# At least 16 bytes, as the server requires; hooks.py signs requests with it.
HOOK_SECRET = "fuzz-secret-0123456789"


def seed(base, key, events=True):
    base = base.rstrip("/")
    headers = {"Authorization": f"Bearer {key}"}

    def call(method, path, body, expected):
        response = requests.request(method, base + path, json=body, headers=headers, timeout=30)
        if response.status_code not in expected:
            raise RuntimeError(f"seeding failed: {method} {path} answered {response.status_code}: {response.text}")

    call("PUT", f"/v1/apps/{APP}", {"overflow": "reject"}, {200, 201})
    call("PUT", f"/v1/apps/{APP}/devices/{DEVICE}",
         {"timeZone": "Europe/Paris", "token": "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
          "locale": "en_US", "backgroundModes": ["remote-notification"]}, {200, 201})
    # Far in the future: it must not fire during the run, or the timer would change it under a check.
    call("POST", f"/v1/apps/{APP}/devices/{DEVICE}/notifications",
         {"id": NOTIFICATION, "fireDate": "2035-06-01T09:00:00", "timeZone": "Europe/Paris",
          "repeat": {"unit": "week", "count": 3}, "alert": {"title": "Fuzz", "body": "hello"}}, {201})
    if events:
        call("POST", f"/v1/apps/{APP}/devices/{DEVICE}/events",
             {"events": [{"kind": "orientation", "value": "portrait"}]}, {200})
    call("PUT", f"/v1/hooks/{HOOK}",
         {"app": APP, "secrets": [HOOK_SECRET],
          "template": {"devices": "/device", "title": "{/title}", "body": "{/body}"}}, {200, 201})


if __name__ == "__main__":
    try:
        seed(sys.argv[1], sys.argv[2])
    except RuntimeError as error:
        sys.exit(str(error))
    print("seeded")

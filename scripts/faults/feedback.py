"""A feedback-webhook receiver (Sources/HeraldDelivery/FeedbackDispatcher.swift posts each outbox
message with `Herald-Event`, `Herald-Event-Id` and `Herald-Signature: t=<unix>,v1=<hex
HMAC-SHA256(secret, "<t>.<body>")>`; the JSON body is {"id", "type", "app", "createdAt", "data"}).

Modes: "slow" answers 200 after `delay` seconds; "fail_first" answers the first attempt at each
event 500 at once, and later attempts 200 after `delay` seconds. Every request is logged with
what it was answered; a 2xx counts as delivered only if the answer was written.
"""

import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def signature_ok(secret, header, body):
    parts = [p.strip() for p in (header or "").split(",")]
    stamps = [p[2:] for p in parts if p.startswith("t=")]
    sigs = [p[3:] for p in parts if p.startswith("v1=")]
    if not stamps or not sigs:
        return False
    expected = hmac.new(secret.encode(), stamps[0].encode() + b"." + body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, s) for s in sigs)


class FeedbackReceiver:
    def __init__(self, secret, mode="slow", delay=7.0):
        self.secret = secret
        self.mode = mode
        self.delay = delay
        self.log = []
        self._attempts = {}
        self._lock = threading.Lock()
        self._server = None

    @property
    def url(self):
        return f"http://127.0.0.1:{self._server.server_address[1]}/feedback"

    def start(self):
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                receiver._handle(self)

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="feedback-receiver", daemon=True).start()
        return self

    def _handle(self, request):
        started = time.time()
        body = request.rfile.read(int(request.headers.get("Content-Length") or 0))
        event_id = request.headers.get("Herald-Event-Id")
        try:
            payload = json.loads(body)
        except ValueError:
            payload = {}
        with self._lock:
            attempt = self._attempts[event_id] = self._attempts.get(event_id, 0) + 1
        if self.mode == "fail_first" and attempt == 1:
            status = 500
        else:
            time.sleep(self.delay)
            status = 200
        try:
            request.send_response(status)
            request.send_header("Content-Length", "0")
            request.end_headers()
            request.wfile.flush()
            answered = status
        except OSError:
            answered = 599   # the sender had gone: not delivered
        entry = {"event_id": event_id, "type": request.headers.get("Herald-Event"),
                 "body_id": payload.get("id"), "notification_id": (payload.get("data") or {}).get("notificationId"),
                 "signature_ok": signature_ok(self.secret, request.headers.get("Herald-Signature"), body),
                 "answered": answered, "attempt": attempt, "started": started, "finished": time.time()}
        with self._lock:
            self.log.append(entry)

    def delivered_events(self):
        with self._lock:
            return {e["event_id"] for e in self.log if e["answered"] < 300}

    def entries(self):
        with self._lock:
            return list(self.log)

    def in_flight(self):
        """Requests received but not answered yet."""
        with self._lock:
            return sum(self._attempts.values()) - len(self.log)

    def close(self):
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

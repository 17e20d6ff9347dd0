"""Loopback ports and a small JSON-over-HTTP client (http.client, one keep-alive connection per
thread and server)."""

import http.client
import json
import socket
import threading


def free_port():
    """A loopback port nothing listens on right now (the kernel's pick for port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HTTPFailure(Exception):
    """No answer: refused, reset, timed out. The request may or may not have taken effect."""


class Reply:
    def __init__(self, status, body):
        self.status = status
        self.body = body

    @property
    def json(self):
        try:
            return json.loads(self.body) if self.body else {}
        except ValueError:
            return {}

    @property
    def ok(self):
        return 200 <= self.status < 300

    def __repr__(self):
        return f"HTTP {self.status}: {self.body[:300]!r}"


class Client:
    """JSON requests to `http://127.0.0.1:<port>`; connections are kept per thread, and dropped
    after any failure so the next request starts clean."""

    def __init__(self, timeout=5.0):
        self.timeout = timeout
        self._local = threading.local()

    def _connection(self, port, timeout):
        conns = getattr(self._local, "conns", None)
        if conns is None:
            conns = self._local.conns = {}
        conn = conns.get(port)
        if conn is None:
            conn = conns[port] = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        conn.timeout = timeout
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        return conn

    def _drop(self, port):
        conn = getattr(self._local, "conns", {}).pop(port, None)
        if conn is not None:
            conn.close()

    def request(self, method, port, path, body=None, headers=None, timeout=None):
        timeout = timeout or self.timeout
        data = None if body is None else json.dumps(body).encode()
        hdrs = {"Content-Type": "application/json"} if data is not None else {}
        hdrs.update(headers or {})
        conn = self._connection(port, timeout)
        try:
            conn.request(method, path, body=data, headers=hdrs)
            resp = conn.getresponse()
            payload = resp.read()
        except (OSError, http.client.HTTPException) as error:
            self._drop(port)
            raise HTTPFailure(f"{method} :{port}{path}: {type(error).__name__}: {error}") from None
        if resp.getheader("Connection", "").lower() == "close":
            self._drop(port)
        return Reply(resp.status, payload.decode(errors="replace"))

    def close(self):
        for port in list(getattr(self._local, "conns", {})):
            self._drop(port)

"""The device side: what clients received, through `POST .../wake` and the SSE event stream.

Devices have no token, so every fired notification is held in the device's inbox and handed over
on wake (Sources/HeraldDelivery/DeviceRouter.swift); an inbox item carries `seq` and
`occurrenceId` (Sources/HeraldAPI/Resources/LifecycleResources.swift). An acknowledgement of N
(`{"ack": N}` in a wake, or `Last-Event-ID: N` on a stream) removes every item up to N.

The recorder keeps the history of what the clients saw: each item handed over (with when its
answer or frame arrived) and each acknowledgement the server answered 2xx (a *confirmed* ack).
checker.py judges that history; the clients only ask it what to acknowledge next and whether a
device has everything.
"""

import json
import socket
import threading
import time

from net import HTTPFailure


class _DeviceState:
    """What one device's client knows, to decide its next request."""

    def __init__(self):
        self.notifications = set()   # notification ids received
        self.confirmed_ack = None    # highest ack answered 2xx
        self.highest_seq = None      # highest seq received


class Recorder:
    """The history of what the clients saw, for checker.check_deliveries (its docstring gives the
    events' shape), and the few questions the clients ask of it. Events are appended under one
    lock, in the order they happened; one device's events come from one client thread."""

    def __init__(self):
        self._lock = threading.Lock()
        self.history = []
        self.devices = {}
        self.errors = {}                # what failed requests ended with, counted

    def _state(self, device):
        state = self.devices.get(device)
        if state is None:
            state = self.devices[device] = _DeviceState()
        return state

    def error(self, kind):
        with self._lock:
            self.errors[kind] = self.errors.get(kind, 0) + 1

    def confirm_ack(self, device, upto, node="", via="wake"):
        """The server answered a request acknowledging up to `upto` (a wake's ack, or a stream's
        Last-Event-ID). An ack whose request got no answer is never recorded: it may or may
        not have applied."""
        if upto is None:
            return
        with self._lock:
            state = self._state(device)
            state.confirmed_ack = upto if state.confirmed_ack is None else max(state.confirmed_ack, upto)
            self.history.append({"type": "ack", "device": device, "upto": upto, "at": time.time(),
                                 "node": node, "via": via})

    def record(self, device, item, node, via, at=None):
        """An item handed over; `at` is when its answer or frame arrived."""
        at = time.time() if at is None else at
        seq = int(item["seq"])
        with self._lock:
            state = self._state(device)
            state.notifications.add(item.get("notificationId", ""))
            state.highest_seq = seq if state.highest_seq is None else max(state.highest_seq, seq)
            self.history.append({"type": "receive", "device": device, "notification": item.get("notificationId", ""),
                                 "occurrence": item["occurrenceId"], "seq": seq, "at": at, "node": node, "via": via})

    @property
    def receipts(self):
        with self._lock:
            return [e for e in self.history if e["type"] == "receive"]

    def acks(self):
        with self._lock:
            return [e for e in self.history if e["type"] == "ack"]

    def highest_seq(self, device):
        with self._lock:
            return self._state(device).highest_seq

    def received_notifications(self, device):
        """Notification ids this device has received at least once."""
        with self._lock:
            return set(self._state(device).notifications)

    def all_acked(self, device):
        """Everything this device received is covered by a confirmed ack."""
        with self._lock:
            state = self._state(device)
            return state.highest_seq is None or (state.confirmed_ack is not None
                                                 and state.confirmed_ack >= state.highest_seq)


def wake(http, recorder, app, device, node, ack):
    """One `POST .../wake` with `{"ack": ack}`; records what it handed over. True on 2xx."""
    body = {} if ack is None else {"ack": ack}
    try:
        reply = http.request("POST", node.port, f"/v1/apps/{app}/devices/{device}/wake", body)
    except HTTPFailure:
        recorder.error("wake: no answer")
        return False
    if not reply.ok:
        recorder.error(f"wake: HTTP {reply.status}")
        return False
    try:
        inbox = json.loads(reply.body)["inbox"]
    except (ValueError, KeyError):
        recorder.error("wake: unreadable answer")
        return False
    now = time.time()
    recorder.confirm_ack(device, ack, node.name, "wake")
    for item in inbox:
        recorder.record(device, item, node.name, "wake", at=now)
    return True


class SSEStream:
    """One `GET .../events/stream` over a raw socket (so a read can stop at any moment), with
    chunked decoding and SSE parsing. Keeps every complete block and what followed the last one."""

    def __init__(self, port, path, last_event_id=None, connect_timeout=3.0):
        self.port = port
        self.path = path
        self.last_event_id = last_event_id
        self.connect_timeout = connect_timeout
        self.sock = None
        self.status = None
        self.chunked = False
        self._raw = b""          # undecoded bytes from the socket
        self._text = ""          # decoded SSE text not yet split into blocks
        self._data_left = 0
        self._crlf_left = 0
        self.blocks = []         # complete SSE blocks (text, without the blank line)
        self.block_times = []    # when each block was complete (epoch seconds)
        self.ended = False       # the server ended the stream (EOF, last chunk, or reset)
        self.clean_end = False   # ... with the terminating chunk
        self.reset = False

    def open(self):
        """Connects and reads the status and headers; returns the status (0: no answer)."""
        try:
            self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=self.connect_timeout)
            headers = [f"GET {self.path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}", "Accept: text/event-stream"]
            if self.last_event_id is not None:
                headers.append(f"Last-Event-ID: {self.last_event_id}")
            self.sock.sendall(("\r\n".join(headers) + "\r\n\r\n").encode())
            while b"\r\n\r\n" not in self._raw:
                data = self.sock.recv(65536)
                if not data:
                    return 0
                self._raw += data
        except OSError:
            self.close()
            return 0
        head, _, self._raw = self._raw.partition(b"\r\n\r\n")
        lines = head.decode(errors="replace").split("\r\n")
        try:
            self.status = int(lines[0].split()[1])
        except (IndexError, ValueError):
            return 0
        self.chunked = any(l.lower().startswith("transfer-encoding:") and "chunked" in l.lower() for l in lines[1:])
        return self.status

    def read_timed(self, until):
        """`read`, each new block with the time it was complete: [(at, block)]."""
        start = len(self.blocks)
        self.read(until)
        return list(zip(self.block_times[start:], self.blocks[start:]))

    def read(self, until):
        """Reads until the clock passes `until` or the stream ends; returns the new blocks."""
        start = len(self.blocks)
        self._decode()
        while not self.ended and time.time() < until:
            try:
                self.sock.settimeout(max(0.01, min(0.2, until - time.time())))
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                self.ended = self.reset = True
                break
            if not data:
                self.ended = True
                break
            self._raw += data
            self._decode()
        return self.blocks[start:]

    def _decode(self):
        if not self.chunked:
            self._text += self._raw.decode(errors="replace")
            self._raw = b""
        else:
            while self._raw:
                if self._data_left == 0 and self._crlf_left == 0:
                    line, sep, rest = self._raw.partition(b"\r\n")
                    if not sep:
                        break
                    size = int(line.split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        self.ended = self.clean_end = True
                        self._raw = b""
                        break
                    self._raw, self._data_left, self._crlf_left = rest, size, 2
                take = self._raw[:self._data_left]
                self._raw = self._raw[len(take):]
                self._data_left -= len(take)
                self._text += take.decode(errors="replace")
                if self._data_left == 0:
                    # The CRLF ending a chunk may arrive split.
                    skip = min(self._crlf_left, len(self._raw))
                    self._raw = self._raw[skip:]
                    self._crlf_left -= skip
        self._text = self._text.replace("\r\n", "\n")
        while "\n\n" in self._text:
            block, _, self._text = self._text.partition("\n\n")
            self.blocks.append(block)
            self.block_times.append(time.time())

    @property
    def trailing(self):
        """What arrived after the last complete block (a field line without its blank line)."""
        return self._text

    def close(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
            self.sock = None


def parse_block(block):
    """An SSE block as {"id", "event", "data", "retry", "comment"}."""
    fields = {}
    for line in block.split("\n"):
        if line.startswith(":"):
            fields["comment"] = line[1:].strip()
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            fields["data"] = fields["data"] + "\n" + value if "data" in fields else value
        elif name in ("id", "event", "retry"):
            fields[name] = value
    return fields


def stream_path(app, device, foreground=True):
    return f"/v1/apps/{app}/devices/{device}/events/stream" + ("?foreground=true" if foreground else "")


def record_stream_blocks(recorder, device, node, timed_blocks):
    """Records the notification frames among `timed_blocks` ([(at, block)], from read_timed);
    returns the last `id:` seen (browser semantics for the next Last-Event-ID), or None."""
    last_id = None
    for at, block in timed_blocks:
        fields = parse_block(block)
        if "id" in fields:
            try:
                last_id = int(fields["id"])
            except ValueError:
                pass
        if fields.get("event") == "notification" and "data" in fields:
            try:
                item = json.loads(fields["data"])
            except ValueError:
                recorder.error("sse: unreadable frame")
                continue
            if item.get("seq") is None and "id" in fields:
                item["seq"] = int(fields["id"])
            recorder.record(device, item, node.name, "sse", at=at)
    return last_id

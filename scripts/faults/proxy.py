"""A TCP proxy between the nodes and PostgreSQL, with two faults.

- `go_silent()`: every connection open at that moment stops forwarding in both directions
  without being closed, like a middlebox (NAT, firewall, load balancer) that lost its state:
  nothing more arrives, no FIN, no RST. The proxy stops reading those sockets, so bytes the node
  sends sit in kernel buffers and its peer never answers. Connections opened afterwards work.
- `kill_all()`: every current connection is reset (RST on both sides).

Two threads per connection; the proxy lives only as long as one run.
"""

import select
import socket
import struct
import threading


class _Link:
    def __init__(self, client, upstream, after_silence):
        self.client = client
        self.upstream = upstream
        self.silent = False
        self.closed = False
        self.after_silence = after_silence


class Proxy:
    def __init__(self, target_port, target_host="127.0.0.1"):
        self.target = (target_host, target_port)
        self.port = None
        self._links = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._listener = None
        self.accepted = 0
        self.silenced = 0
        self.accepted_at_silence = None   # how many had been accepted when go_silent ran
        self.bytes_after_silence = 0      # forwarded on connections opened after it

    def start(self):
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(128)
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept_loop, name="proxy-accept", daemon=True).start()
        return self

    def _accept_loop(self):
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self._listener], [], [], 0.2)
                if not ready:
                    continue
                client, _ = self._listener.accept()
            except (OSError, ValueError):
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                _reset(client)
                continue
            for s in (client, upstream):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            link = _Link(client, upstream, self.accepted_at_silence is not None)
            with self._lock:
                self._links.append(link)
                self.accepted += 1
            threading.Thread(target=self._pump, args=(link, client, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(link, upstream, client), daemon=True).start()

    def _pump(self, link, source, sink):
        while not self._stop.is_set() and not link.closed:
            if link.silent:
                # Park: neither read nor write, never close. Only the end of the run frees it.
                self._stop.wait(0.5)
                continue
            try:
                ready, _, _ = select.select([source], [], [], 0.2)
                if not ready:
                    continue
                if link.silent:
                    continue
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
                if link.after_silence:
                    self.bytes_after_silence += len(data)
            except (OSError, ValueError):   # ValueError: select on a socket closed by kill_all
                break
        if not link.silent:
            self._close(link)

    def _close(self, link):
        with self._lock:
            if link.closed:
                return
            link.closed = True
            if link in self._links:
                self._links.remove(link)
        for s in (link.client, link.upstream):
            try:
                s.close()
            except OSError:
                pass

    def go_silent(self):
        """Every connection open now goes silent; returns how many."""
        with self._lock:
            links = [l for l in self._links if not l.closed and not l.silent]
            for link in links:
                link.silent = True
            self.silenced += len(links)
            self.accepted_at_silence = self.accepted
        return len(links)

    def stats(self):
        """What the proxy did since go_silent: shows the nodes could reach PostgreSQL anew."""
        if self.accepted_at_silence is None:
            return f"{self.accepted} connections accepted"
        return (f"{self.accepted - self.accepted_at_silence} connections accepted after the silence, "
                f"{self.bytes_after_silence} bytes forwarded on them; {self.silenced} silent")

    def kill_all(self):
        """Resets every current connection; returns how many."""
        with self._lock:
            links = [l for l in self._links if not l.closed]
        for link in links:
            with self._lock:
                link.closed = True
                if link in self._links:
                    self._links.remove(link)
            _reset(link.client)
            _reset(link.upstream)
        return len(links)

    def close(self):
        self._stop.set()
        try:
            self._listener.close()
        except OSError:
            pass
        with self._lock:
            links, self._links = list(self._links), []
        for link in links:
            link.closed = True
            for s in (link.client, link.upstream):
                try:
                    s.close()
                except OSError:
                    pass


def _reset(sock):
    """Close with SO_LINGER 0: the peer gets an RST, not a FIN."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


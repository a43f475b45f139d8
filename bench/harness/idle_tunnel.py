"""What a server keeps per idle CONNECT tunnel: open many tunnels to the origin's TLS port, send nothing through
them, and read the growth of the server's file descriptors and VmRSS."""

import time

from harness.idle import (CONNECT_BATCH, CONNECT_BATCH_PAUSE_SECONDS, HEADER_END, MEASUREMENT_DEADLINE_SECONDS,
                          SETTLE_SECONDS, connect, is_open, read_head)

# The status line a proxy answers an established tunnel with (RFC 9110 §9.3.6: any 2xx).
TUNNEL_ESTABLISHED = b"HTTP/1.1 2"
TUNNEL_ESTABLISHED_HTTP10 = b"HTTP/1.0 2"


class IdleTunnelResult:
    """Growth of the server's descriptors and VmRSS divided by the tunnels still open."""

    def __init__(self, opened, held, base_descriptors, loaded_descriptors, base_kib, loaded_kib, refusal=None):
        self.opened = opened
        self.held = held
        self.base_descriptors = base_descriptors
        self.loaded_descriptors = loaded_descriptors
        self.base_kib = base_kib
        self.loaded_kib = loaded_kib
        self.refusal = refusal  # the first answer that was not a 2xx, if any

    def __str__(self):
        return (f"tunnels: held {self.held}/{self.opened}, descriptors {self.base_descriptors} -> "
                f"{self.loaded_descriptors}, RSS {self.base_kib} -> {self.loaded_kib} KiB"
                f"{', refused: ' + self.refusal if self.refusal else ''}")

    @property
    def descriptors_per_tunnel(self):
        return (self.loaded_descriptors - self.base_descriptors) / self.held if self.held else None

    @property
    def kib_per_tunnel(self):
        return (self.loaded_kib - self.base_kib) / self.held if self.held else None


def measure_idle_tunnels(daemon, port, authority, count, through_proxy=True):
    """Opens `count` connections to 127.0.0.1:`port`; through a proxy each sends `CONNECT authority` and reads the
    answer, then stays silent. Without `through_proxy` (the direct baseline, the origin itself) each is a plain TCP
    connection to the origin's TLS port on which no handshake starts."""
    deadline = time.monotonic() + MEASUREMENT_DEADLINE_SECONDS
    request = f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode()
    if through_proxy:
        # One tunnel first, so one-off start-up allocations (first upstream connection, caches) are in the base.
        with connect(port) as warm_up:
            _open_tunnel(warm_up, request, deadline)
    time.sleep(SETTLE_SECONDS)
    base_descriptors, base_kib = daemon.descriptor_count(), daemon.rss_kib()
    sockets, refusal = [], None
    try:
        while len(sockets) < count and time.monotonic() < deadline:
            for _ in range(min(CONNECT_BATCH, count - len(sockets))):
                connection = connect(port)
                sockets.append(connection)
                if through_proxy:
                    connection.sendall(request)
            time.sleep(CONNECT_BATCH_PAUSE_SECONDS)
        if through_proxy:
            for connection in sockets:
                answer = _open_tunnel(connection, request=None, deadline=deadline)
                if refusal is None and answer is not None:
                    refusal = answer
        time.sleep(SETTLE_SECONDS)
        held = sum(1 for connection in sockets if is_open(connection))
        loaded_descriptors, loaded_kib = daemon.descriptor_count(), daemon.rss_kib()
    finally:
        for connection in sockets:
            connection.close()
    return IdleTunnelResult(len(sockets), held, base_descriptors, loaded_descriptors, base_kib, loaded_kib, refusal)


def _open_tunnel(connection, request, deadline):
    """Sends `request` (unless None) and reads the answer's head; None when it is a 2xx, else its first line (an
    empty one when the server closed or timed out), so the caller can say why a tunnel was not held."""
    if request:
        connection.sendall(request)
    received = read_head(connection, deadline)
    if received.startswith((TUNNEL_ESTABLISHED, TUNNEL_ESTABLISHED_HTTP10)) and HEADER_END in received:
        return None
    return received.split(b"\r\n", 1)[0].decode(errors="replace")

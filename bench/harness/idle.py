"""Memory a server spends per idle client connection: open many, do nothing, read the VmRSS delta."""

import socket
import time

# Connections opened per batch, and the pause between batches, so no listen backlog overflows.
CONNECT_BATCH = 50
CONNECT_BATCH_PAUSE_SECONDS = 0.01
# Per-socket timeout for connecting and for reading a response.
SOCKET_TIMEOUT_SECONDS = 5
# Time for the server to read what was sent and for its memory figures to settle before /proc is read.
SETTLE_SECONDS = 1.0
# Upper bound on the whole measurement, whatever the server does.
MEASUREMENT_DEADLINE_SECONDS = 60
RECEIVE_CHUNK = 65536
HEADER_END = b"\r\n\r\n"

PARTIAL = "partial"      # request head sent without its final empty line: the server waits for the rest
KEPT_ALIVE = "kept-alive"  # one complete keep-alive request answered: the server waits for the next one
SILENT = "silent"        # nothing sent at all, as browsers open connections ahead of use: the server waits
MODES = (PARTIAL, KEPT_ALIVE, SILENT)


class IdleResult:
    """VmRSS delta of the server's process tree divided by the connections it still held."""

    def __init__(self, mode, opened, held, base_kib, loaded_kib):
        self.mode = mode
        self.opened = opened
        self.held = held
        self.base_kib = base_kib
        self.loaded_kib = loaded_kib

    def __str__(self):
        per_connection = "n/a" if self.kib_per_connection is None else f"{self.kib_per_connection:.1f} KiB"
        return (f"{self.mode}: held {self.held}/{self.opened}, RSS {self.base_kib} -> {self.loaded_kib} KiB, "
                f"{per_connection} per connection")

    @property
    def kib_per_connection(self):
        if self.held == 0:
            return None
        return (self.loaded_kib - self.base_kib) / self.held


def request_head(request_target, host):
    return f"GET {request_target} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: ipdirect-bench\r\n".encode()


def measure_idle(daemon, port, request_target, host, count, mode):
    """Opens `count` connections to 127.0.0.1:`port` and leaves them idle in `mode`."""
    complete_request = request_head(request_target, host) + b"\r\n"
    partial_request = request_head(request_target, host)
    deadline = time.monotonic() + MEASUREMENT_DEADLINE_SECONDS
    # One kept-alive request first, its connection left open and idle through the settling time, so one-off
    # allocations are in the base: the first upstream connection, caches, and whatever a server sets up the
    # first time a client connection idles.
    warm_up = connect(port)
    sockets = []
    try:
        warm_up.sendall(complete_request)
        _read_response(warm_up, deadline)
        time.sleep(SETTLE_SECONDS)
        base_kib = daemon.rss_kib()
        while len(sockets) < count and time.monotonic() < deadline:
            for _ in range(min(CONNECT_BATCH, count - len(sockets))):
                connection = connect(port)
                sockets.append(connection)
                if mode != SILENT:
                    connection.sendall(partial_request if mode == PARTIAL else complete_request)
            time.sleep(CONNECT_BATCH_PAUSE_SECONDS)
        if mode == KEPT_ALIVE:
            for connection in sockets:
                _read_response(connection, deadline)
        time.sleep(SETTLE_SECONDS)
        held = sum(1 for connection in sockets if is_open(connection))
        loaded_kib = daemon.rss_kib()
    finally:
        for connection in [warm_up] + sockets:
            connection.close()
    return IdleResult(mode, len(sockets), held, base_kib, loaded_kib)


def connect(port):
    return socket.create_connection(("127.0.0.1", port), timeout=SOCKET_TIMEOUT_SECONDS)


def read_head(connection, deadline):
    """What arrives until the end of a response head: the head and any bytes after it, or less when the server
    closed or the connection timed out first (so HEADER_END is missing)."""
    received = b""
    try:
        while HEADER_END not in received and time.monotonic() < deadline:
            chunk = connection.recv(RECEIVE_CHUNK)
            if not chunk:
                break
            received += chunk
    except (socket.timeout, ConnectionError):
        pass
    return received


def _read_response(connection, deadline):
    """Reads one response framed by Content-Length (all the benchmark's origin sends); returns quietly on
    close or timeout, which `is_open` then reports."""
    received = read_head(connection, deadline)
    if HEADER_END not in received:
        return
    try:
        head, _, body = received.partition(HEADER_END)
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        while len(body) < length and time.monotonic() < deadline:
            chunk = connection.recv(RECEIVE_CHUNK)
            if not chunk:
                return
            body += chunk
    except (socket.timeout, ConnectionError):
        return


def is_open(connection):
    """True while the server keeps the connection open without having sent anything unasked."""
    connection.setblocking(False)
    try:
        connection.recv(1, socket.MSG_PEEK)
    except BlockingIOError:
        return True
    except OSError:
        return False
    # Readable: either closed (b"") or an answer nobody asked for, such as a timeout error response.
    return False

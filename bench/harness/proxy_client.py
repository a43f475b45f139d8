"""The client of bench/callgrind and bench/syscalls: a fixed mix of plain http:// requests sent through a proxy one
after another from Python, every response read whole by its Content-Length and checked. Both scripts send exactly
these bytes, so their figures for one kind of request describe the same work."""

import socket
import time

from harness.targets import BENCH_HOST, SMALL_FILE, SMALL_FILE_BYTES

MEBIBYTE = 2**20
MEBIBYTE_FILE = "1m.bin"
# One send or receive of the client; generous, since the proxy may run under callgrind.
SOCKET_TIMEOUT_SECONDS = 60
# A response head longer than this is a broken response, not one to wait for.
MAX_HEAD_BYTES = 16 * 1024
RECEIVE_BYTES = 256 * 1024
# Longer than ipdirect waits before it parks an idle kept-alive connection (SessionRules.parkAfterMillis), even
# with callgrind slowing its loop: every request of the parked kind wakes a parked connection.
PARKING_PAUSE_SECONDS = 0.1
# What Firefox 128 on Linux sends for a page through a proxy, after the request line and Host: a head of about
# 500 bytes. The Cookie value is 101 bytes of four name=value pairs, as a site's session and preference
# cookies look.
BROWSER_FIELDS = [
    "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
    "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
    "Accept-Language: en-US,en;q=0.5",
    "Accept-Encoding: gzip, deflate, br, zstd",
    "Connection: keep-alive",
    "Cookie: sid=5f2b8c1e9a7d4e3f8b6a0c2d1e4f7a9b; theme=dark; lang=en-US; consent=analytics%3D0%26ads%3D0%26v%3D2",
    "Upgrade-Insecure-Requests: 1",
]


class Kind:
    """One item of the mix: which file, whether each request has a connection of its own, which header fields
    follow Host, and how many requests the two runs of a figure make."""

    def __init__(self, key, label, path, size_bytes, new_connection, counts, quick_counts, pause_seconds=0.0,
                 fields=()):
        self.key = key
        self.label = label
        self.path = path
        self.size_bytes = size_bytes
        self.new_connection = new_connection
        self.counts = counts
        self.quick_counts = quick_counts
        # Idle time before each request on the kept-alive connection.
        self.pause_seconds = pause_seconds
        self.fields = list(fields)


MIX = [
    Kind("keep-alive-1k", "keep-alive 1 KiB", SMALL_FILE, SMALL_FILE_BYTES, False, (1000, 3000), (100, 300)),
    Kind("new-connection-1k", "new connection 1 KiB", SMALL_FILE, SMALL_FILE_BYTES, True, (1000, 3000),
         (100, 300)),
    Kind("browser-1k", "keep-alive 1 KiB, browser head", SMALL_FILE, SMALL_FILE_BYTES, False, (1000, 3000),
         (100, 300), fields=BROWSER_FIELDS),
    Kind("keep-alive-1m", "keep-alive 1 MiB", MEBIBYTE_FILE, MEBIBYTE, False, (100, 300), (10, 30)),
    Kind("parked-1k", "parked between requests 1 KiB", SMALL_FILE, SMALL_FILE_BYTES, False, (100, 300), (20, 60),
         pause_seconds=PARKING_PAUSE_SECONDS),
]
KINDS = {kind.key: kind for kind in MIX}


class ClientError(Exception):
    """A request that did not get the whole 200 response it should have."""


def request_bytes(kind, origin_port):
    """An absolute-form GET (RFC 9112 §3.2.2) for the kind's file, closing the connection when it has one of
    its own."""
    authority = f"{BENCH_HOST}:{origin_port}"
    lines = [f"GET http://{authority}/{kind.path} HTTP/1.1", f"Host: {authority}", *kind.fields]
    if kind.new_connection:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def read_response(connection, pending):
    """Reads one response whose length is its Content-Length; returns what arrived after it."""
    while b"\r\n\r\n" not in pending:
        if len(pending) > MAX_HEAD_BYTES:
            raise ClientError(f"response head longer than {MAX_HEAD_BYTES} bytes")
        pending += _receive(connection)
    head, _, pending = pending.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = lines[0].split(" ")
    if len(status) < 2 or status[1] != "200":
        raise ClientError(f"answered {lines[0]!r}")
    length = None
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length is None:
        raise ClientError("response without Content-Length")
    while len(pending) < length:
        pending += _receive(connection, length - len(pending))
    return length, pending[length:]


def _receive(connection, wanted=RECEIVE_BYTES):
    data = connection.recv(min(wanted, RECEIVE_BYTES))
    if not data:
        raise ClientError("connection closed before the response ended")
    return data


def send_requests(kind, port, origin_port, count):
    """`count` requests of `kind` through the proxy on `port`, one after another, each response read in full."""
    request = request_bytes(kind, origin_port)
    if kind.new_connection:
        for _ in range(count):
            with socket.create_connection(("127.0.0.1", port), timeout=SOCKET_TIMEOUT_SECONDS) as connection:
                connection.sendall(request)
                length, rest = read_response(connection, b"")
                _check_length(kind, length)
                # Wait for the proxy's close, so that its work for this connection is done before the next one.
                if rest or connection.recv(1):
                    raise ClientError("bytes after a Connection: close response")
        return
    with socket.create_connection(("127.0.0.1", port), timeout=SOCKET_TIMEOUT_SECONDS) as connection:
        pending = b""
        for _ in range(count):
            time.sleep(kind.pause_seconds)
            connection.sendall(request)
            length, pending = read_response(connection, pending)
            _check_length(kind, length)
        if pending:
            raise ClientError("bytes after the last response")


def _check_length(kind, length):
    if length != kind.size_bytes:
        raise ClientError(f"{kind.path}: {length} bytes instead of {kind.size_bytes}")

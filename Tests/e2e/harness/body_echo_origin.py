"""A raw origin that answers each request with what it received, decoded, so a test sees that a chunked request
body and its trailer fields arrived intact, and that a pipelined request after it arrived whole and in turn.

Every request is answered with Content-Length and JSON
`{"method": ..., "path": ..., "body": <latin-1 text>, "trailers": [[name, value], ...]}`, and the connection
stays open for the next one. `GET /one-byte-chunks` is answered instead with `ONE_BYTE_CHUNKS_BODY` as a chunked
response of one data byte per chunk, each chunk in a send of its own, ending in the `ONE_BYTE_CHUNKS_TRAILER`
field (RFC 9112 §7.1).
"""

import json
import socket
import time

from .loopback_server import LoopbackServer
from .raw_http import RawResponse

# Resolved to loopback by the proxy's static hosts (network.py).
ORIGIN_NAME = "origin.test"
ONE_BYTE_CHUNKS_PATH = "/one-byte-chunks"
# Framing look-alikes inside chunk data: a proxy that scanned the data would end the body early.
ONE_BYTE_CHUNKS_BODY = b"data\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n\r\n;ext=1 end"
ONE_BYTE_CHUNKS_TRAILER = ("X-Checksum", "one-byte-chunks-complete")
# A pause between chunks so that each one reaches the proxy in a read of its own.
CHUNK_PAUSE_SECONDS = 0.002
# A connection that sends nothing this long is closed, so stray readers never pile up.
IDLE_CLOSE_SECONDS = 10.0
# Longest request line, field line or chunk-size line accepted.
MAX_LINE_BYTES = 65536


class MalformedRequest(ValueError):
    pass


class BodyEchoOrigin(LoopbackServer):
    name = "body-echo-origin"

    @property
    def authority(self) -> str:
        return f"{ORIGIN_NAME}:{self.port}"

    def url(self, path: str) -> str:
        return f"http://{self.authority}{path}"

    def serve(self, connection: socket.socket) -> None:
        connection.settimeout(IDLE_CLOSE_SECONDS)
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        reader = connection.makefile("rb")
        with connection, reader:
            while not self.stopping:
                try:
                    request = _read_request(reader)
                except (OSError, MalformedRequest):
                    return
                if request is None:
                    return
                if request["method"] == "GET" and request["path"] == ONE_BYTE_CHUNKS_PATH:
                    _send_one_byte_chunks(connection)
                else:
                    _send_echo(connection, request)


def _read_line(reader) -> bytes:
    line = reader.readline(MAX_LINE_BYTES)
    if not line.endswith(b"\r\n"):
        raise MalformedRequest(f"line {line[:60]!r} does not end in CRLF")
    return line[:-2]


def _read_request(reader) -> dict | None:
    """One request, its body decoded; None when the client closed between requests."""
    first = reader.readline(MAX_LINE_BYTES)
    if not first:
        return None
    method, target, _ = first.decode("latin-1").rstrip("\r\n").split(" ", 2)
    headers = {}
    while line := _read_line(reader):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    body, trailers = b"", []
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body, trailers = _read_chunked(reader)
    elif "content-length" in headers:
        body = reader.read(int(headers["content-length"]))
    return {"method": method, "path": target, "body": body.decode("latin-1"), "trailers": trailers}


def _read_chunked(reader) -> tuple[bytes, list[list[str]]]:
    body = bytearray()
    while size := int(_read_line(reader).split(b";", 1)[0], 16):
        body.extend(reader.read(size))
        if _read_line(reader) != b"":
            raise MalformedRequest("chunk data not followed by CRLF")
    trailers = []
    while line := _read_line(reader):
        name, _, value = line.decode("latin-1").partition(":")
        trailers.append([name.strip(), value.strip()])
    return bytes(body), trailers


def _send_echo(connection: socket.socket, request: dict) -> None:
    payload = json.dumps(request).encode()
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                       b"Content-Length: %d\r\n\r\n%s" % (len(payload), payload))


def _send_one_byte_chunks(connection: socket.socket) -> None:
    name, value = ONE_BYTE_CHUNKS_TRAILER
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n"
                       b"Trailer: %s\r\n\r\n" % name.encode())
    for byte in ONE_BYTE_CHUNKS_BODY:
        time.sleep(CHUNK_PAUSE_SECONDS)
        connection.sendall(b"1\r\n%c\r\n" % byte)
    connection.sendall(b"0\r\n%s: %s\r\n\r\n" % (name.encode(), value.encode()))


def received_request(response: RawResponse) -> dict:
    """What the origin says it received, from its answer as the proxy passed it on."""
    assert response.status == 200, f"expected the origin's echo, got:\n{response.describe()}"
    return json.loads(response.body)

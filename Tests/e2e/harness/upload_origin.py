"""An HTTP origin that hashes every request body it receives, proving which bytes arrived.

Answers any POST or PUT with JSON `{"bytes": N, "sha256": HEX, "framing": ...}` and keeps the same record in
`received` so a test can also look at it directly. Reads Content-Length and chunked bodies (RFC 9112 §6, §7.1).
"""

import hashlib
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .background_server import ServedInBackground
from .ports import LOOPBACK

# Read size for request bodies: large enough that hashing, not syscalls, dominates.
READ_CHUNK_BYTES = 256 * 1024
# Longest chunk-size or trailer line accepted (RFC 9112 §7.1 puts no limit; an origin must pick one).
MAX_LINE_BYTES = 8192


@dataclass(frozen=True)
class ReceivedBody:
    path: str
    framing: str
    length: int
    sha256: str


class MalformedChunkedBody(ValueError):
    pass


class UploadOrigin(ServedInBackground):
    def __init__(self, host: str = LOOPBACK):
        origin = self
        self.received: list[ReceivedBody] = []
        self.errors: list[str] = []  # bodies that broke off or were malformed
        self._lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                self._hash_body()

            def do_PUT(self):
                self._hash_body()

            def _hash_body(self):
                digest = hashlib.sha256()
                try:
                    if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                        framing, length = "chunked", _read_chunked(self.rfile, digest)
                    else:
                        framing = "content-length"
                        length = _read_exactly(self.rfile, int(self.headers.get("Content-Length", "0")), digest)
                except (MalformedChunkedBody, ValueError, ConnectionError) as error:
                    with origin._lock:
                        origin.errors.append(f"{self.path}: {error}")
                    try:
                        self.send_error(400, str(error))
                    except OSError:
                        pass  # the sender is gone; the error is recorded
                    return
                record = ReceivedBody(self.path, framing, length, digest.hexdigest())
                with origin._lock:
                    origin.received.append(record)
                payload = json.dumps({"bytes": length, "sha256": record.sha256, "framing": framing,
                                      "path": self.path}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        server = ThreadingHTTPServer((host, 0), Handler)
        server.daemon_threads = True
        self._serve_in_background(server, "upload-origin")
        self.host = host


def _read_exactly(stream, length: int, digest) -> int:
    remaining = length
    while remaining > 0:
        block = stream.read(min(READ_CHUNK_BYTES, remaining))
        if not block:
            raise ConnectionError(f"body ended after {length - remaining} of {length} bytes")
        digest.update(block)
        remaining -= len(block)
    return length


def _read_chunked(stream, digest) -> int:
    total = 0
    while True:
        size_line = stream.readline(MAX_LINE_BYTES)
        if not size_line.endswith(b"\r\n"):
            raise MalformedChunkedBody(f"chunk-size line {size_line[:40]!r} does not end in CRLF")
        size = int(size_line.split(b";", 1)[0].strip(), 16)
        if size == 0:
            break
        total += _read_exactly(stream, size, digest)
        if stream.read(2) != b"\r\n":
            raise MalformedChunkedBody("chunk data not followed by CRLF")
    while True:  # trailer section, ended by an empty line (RFC 9112 §7.1.2)
        trailer_line = stream.readline(MAX_LINE_BYTES)
        if trailer_line in (b"\r\n", b""):
            return total

"""A byte-exact HTTP/1.1 client for requests no library would send (smuggling, pipelining, raw CONNECT).

Responses are framed by RFC 9112 §6.3: no body after HEAD, 1xx, 204 and 304, or after a 2xx to CONNECT;
otherwise chunked, Content-Length, or until the connection closes.
"""

import socket
import time
from dataclasses import dataclass, field

DEFAULT_TIMEOUT_SECONDS = 10.0
READ_CHUNK_BYTES = 65536
# A response head larger than this is a broken peer, not a test subject.
MAX_HEAD_BYTES = 256 * 1024
NO_BODY_STATUSES = (204, 304)


class ResponseIncomplete(AssertionError):
    pass


@dataclass
class RawResponse:
    status: int
    reason: str
    headers: list[tuple[str, str]]
    body: bytes = b""
    # Trailer fields after a chunked body (RFC 9112 §7.1.2), in the order received.
    trailers: list[tuple[str, str]] = field(default_factory=list)

    def header(self, name: str) -> str | None:
        values = self.header_values(name)
        return ", ".join(values) if values else None

    def header_values(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key.lower() == name.lower()]

    @property
    def text(self) -> str:
        return self.body.decode(errors="replace")

    def describe(self) -> str:
        head = "\n".join(f"{key}: {value}" for key, value in self.headers)
        return f"{self.status} {self.reason}\n{head}\n\n{self.text[:2000]}"


class RawConnection:
    def __init__(self, address: tuple[str, int], timeout: float = DEFAULT_TIMEOUT_SECONDS):
        self.sock = socket.create_connection(address, timeout=timeout)
        self._buffer = bytearray()

    @classmethod
    def over(cls, sock: socket.socket) -> "RawConnection":
        """Reads and writes an already connected socket (a TLS one, say) instead of opening its own."""
        connection = cls.__new__(cls)
        connection.sock = sock
        connection._buffer = bytearray()
        return connection

    def __enter__(self) -> "RawConnection":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.sock.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send_separately(self, pieces: list[bytes], pause_seconds: float) -> None:
        """Each piece in a TCP segment of its own, with a pause between, so the peer reads them one by one."""
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for piece in pieces:
            self.sock.sendall(piece)
            time.sleep(pause_seconds)

    def read_response(self, request_method: str = "GET") -> RawResponse:
        """One complete response; interim 1xx responses other than 101 are skipped."""
        while True:
            response = self.read_head()
            if 100 <= response.status < 200 and response.status != 101:
                continue
            break
        if (request_method == "HEAD" or response.status in NO_BODY_STATUSES or response.status == 101
                or (request_method == "CONNECT" and 200 <= response.status < 300)):
            return response
        transfer_coding = (response.header("Transfer-Encoding") or "").lower()
        if "chunked" in transfer_coding:
            response.body, response.trailers = self._read_chunked()
        elif response.header("Content-Length") is not None:
            response.body = self._read_exactly(int(response.header("Content-Length")))
        else:
            response.body = self._read_until_close()
        return response

    def read_head(self) -> RawResponse:
        end = self._fill_until(b"\r\n\r\n", MAX_HEAD_BYTES)
        head = bytes(self._buffer[:end])
        del self._buffer[:end + 4]
        status_line, *field_lines = head.decode("latin-1").split("\r\n")
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/"):
            raise ResponseIncomplete(f"not an HTTP status line: {status_line!r}")
        headers = []
        for line in field_lines:
            name, _, value = line.partition(":")
            headers.append((name.strip(), value.strip()))
        return RawResponse(int(parts[1]), parts[2] if len(parts) > 2 else "", headers)

    def take_buffered(self) -> bytes:
        """Bytes read past the last response (must be empty before handing the socket to TLS)."""
        data = bytes(self._buffer)
        self._buffer.clear()
        return data

    def closed_by_peer(self, timeout: float = 3.0) -> bool:
        """True if the peer closes (EOF or reset) within `timeout` without sending anything more."""
        deadline = time.monotonic() + timeout
        if self._buffer:
            return False
        while time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                block = self.sock.recv(READ_CHUNK_BYTES)
            except socket.timeout:
                return False
            except (ConnectionResetError, BrokenPipeError):
                return True
            if not block:
                return True
            self._buffer.extend(block)
            return False
        return False

    def _fill_until(self, marker: bytes, limit: int) -> int:
        while True:
            found = self._buffer.find(marker)
            if found >= 0:
                return found
            if len(self._buffer) > limit:
                raise ResponseIncomplete(f"no {marker!r} within {limit} bytes")
            self._receive_more()

    def _receive_more(self) -> None:
        try:
            block = self.sock.recv(READ_CHUNK_BYTES)
        except socket.timeout as error:
            raise ResponseIncomplete(f"timed out waiting for more bytes; have {bytes(self._buffer[:300])!r}") \
                from error
        except ConnectionResetError as error:
            raise ResponseIncomplete(f"connection reset; have {bytes(self._buffer[:300])!r}") from error
        if not block:
            raise ResponseIncomplete(f"connection closed; have {bytes(self._buffer[:300])!r}")
        self._buffer.extend(block)

    def _read_exactly(self, length: int) -> bytes:
        while len(self._buffer) < length:
            self._receive_more()
        data = bytes(self._buffer[:length])
        del self._buffer[:length]
        return data

    def _read_line(self) -> bytes:
        end = self._fill_until(b"\r\n", MAX_HEAD_BYTES)
        line = bytes(self._buffer[:end])
        del self._buffer[:end + 2]
        return line

    def _read_chunked(self) -> tuple[bytes, list[tuple[str, str]]]:
        body = bytearray()
        while True:
            size = int(self._read_line().split(b";", 1)[0].strip(), 16)
            if size == 0:
                break
            body.extend(self._read_exactly(size))
            if self._read_exactly(2) != b"\r\n":
                raise ResponseIncomplete("chunk data not followed by CRLF")
        trailers = []
        while line := self._read_line():  # trailer fields up to the empty line
            name, _, value = line.decode("latin-1").partition(":")
            trailers.append((name.strip(), value.strip()))
        return bytes(body), trailers

    def _read_until_close(self) -> bytes:
        while True:
            try:
                block = self.sock.recv(READ_CHUNK_BYTES)
            except (socket.timeout, ConnectionResetError):
                break
            if not block:
                break
            self._buffer.extend(block)
        return self.take_buffered()


def get_request(url: str, authority: str, extra_headers: str = "", method: str = "GET") -> bytes:
    """An absolute-form request (RFC 9112 §3.2.2), as a client sends it to a forward proxy."""
    return f"{method} {url} HTTP/1.1\r\nHost: {authority}\r\n{extra_headers}\r\n".encode()

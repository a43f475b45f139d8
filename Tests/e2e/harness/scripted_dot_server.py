"""A DNS-over-TLS server in Python for what unbound cannot be made to do: answer a query first with a reply
that carries its ID but another question (a confused or spoofing server), and answer pipelined queries in
the reverse of their order. It answers every name with `address`, and records every query as it arrived
(connection number, ID, length, EDNS options) so a test can check what ipdirect put on the wire."""

import socketserver
import struct
import threading
from dataclasses import dataclass

from .background_server import ServedInBackground
from .certificates import CertificatePair
from .dns_message import decode_query, encode_query, encode_response
from .ports import LOOPBACK
from .tls_server import server_context

# RFC 1035 §4.2.2: every message on the stream has a 16-bit length in front.
LENGTH_PREFIX = struct.Struct("!H")
# The name of the reply for another question, sent first under the query's ID.
SPOOFED_NAME = "spoofed.test"
SPOOFED_ADDRESS = "192.0.2.66"
# Queries collected before answering them in reverse: more than one so the order visibly flips.
REVERSED_BATCH = 4
TTL = 60


@dataclass(frozen=True)
class ReceivedQuery:
    connection: int
    id: int
    name: str
    type: str
    length: int
    edns_options: tuple[tuple[int, bytes], ...] | None


class ScriptedDotServer(ServedInBackground):
    def __init__(self, certificate: CertificatePair, address: str, spoof_first: bool = False):
        self.address = address
        self.spoof_first = spoof_first
        self.queries: list[ReceivedQuery] = []
        self._lock = threading.Lock()
        self._connections = 0
        context = server_context(certificate)
        scripted = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                with scripted._lock:
                    scripted._connections += 1
                    number = scripted._connections
                try:
                    stream = context.wrap_socket(self.request, server_side=True)
                except OSError:
                    return
                scripted._serve(stream, number)

        server = socketserver.ThreadingTCPServer((LOOPBACK, 0), Handler)
        server.daemon_threads = True
        self._serve_in_background(server, "scripted-dot")

    @property
    def connections(self) -> int:
        with self._lock:
            return self._connections

    def _serve(self, stream, number: int) -> None:
        batch: list[bytes] = []
        while (message := _read_message(stream)) is not None:
            parsed = decode_query(message)
            with self._lock:
                self.queries.append(ReceivedQuery(number, parsed.id, parsed.name.rstrip("."), parsed.type,
                                                  len(message), parsed.edns_options))
            addresses = (self.address,) if parsed.type == "A" else ()
            if self.spoof_first:
                spoofed = encode_response(encode_query(SPOOFED_NAME, parsed.type, parsed.id),
                                          (SPOOFED_ADDRESS,) if parsed.type == "A" else (), TTL)
                _write_message(stream, spoofed)
                _write_message(stream, encode_response(message, addresses, TTL))
                continue
            batch.append(encode_response(message, addresses, TTL))
            if len(batch) == REVERSED_BATCH:
                for reply in reversed(batch):
                    _write_message(stream, reply)
                batch = []


def _read_exactly(stream, count: int) -> bytes | None:
    data = b""
    while len(data) < count:
        chunk = stream.recv(count - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _read_message(stream) -> bytes | None:
    prefix = _read_exactly(stream, LENGTH_PREFIX.size)
    if prefix is None:
        return None
    return _read_exactly(stream, LENGTH_PREFIX.unpack(prefix)[0])


def _write_message(stream, message: bytes) -> None:
    stream.sendall(LENGTH_PREFIX.pack(len(message)) + message)

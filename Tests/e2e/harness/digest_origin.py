"""A raw TCP origin for tunnel tests: it reads until the client half-closes, then answers with the byte count
and sha256 of what it received followed by that many bytes of its own, and closes.

Each step needs the tunnel to pass a half-close on: the origin only answers once the client's FIN reached it,
and the client only sees the end once the origin's FIN came back.
"""

import hashlib
import socket

from .loopback_server import LoopbackServer

# A connection that sends nothing for this long is dropped, so a broken test never hangs the origin.
IDLE_CLOSE_SECONDS = 20.0
READ_CHUNK_BYTES = 65536


def exchange_through(sock: socket.socket, payload: bytes, early: bytes = b"") -> None:
    """Sends `payload` up an open tunnel to this origin, half-closes, and checks what comes back until the
    origin closes: the count and sha256 of `payload`, then as many bytes of `reply_payload`. `early` holds
    bytes the client already read past the tunnel's opening."""
    sock.sendall(payload)
    # The origin answers only after our FIN reached it through the proxy.
    sock.shutdown(socket.SHUT_WR)
    received = early
    while block := sock.recv(READ_CHUNK_BYTES):
        received += block
    summary, _, echoed = received.partition(b"\n")
    assert summary.decode() == f"{len(payload)} {hashlib.sha256(payload).hexdigest()}"
    assert echoed == reply_payload(len(payload)), f"{len(echoed)} bytes came back, expected {len(payload)}"


def reply_payload(length: int) -> bytes:
    """The bytes the origin sends back after its summary line: a repeating pattern of `length` bytes."""
    pattern = bytes(range(256))
    return (pattern * (length // len(pattern) + 1))[:length]


class DigestOrigin(LoopbackServer):
    name = "digest-origin"

    def serve(self, connection: socket.socket) -> None:
        connection.settimeout(IDLE_CLOSE_SECONDS)
        digest = hashlib.sha256()
        received = 0
        try:
            while block := connection.recv(READ_CHUNK_BYTES):
                digest.update(block)
                received += len(block)
            connection.sendall(f"{received} {digest.hexdigest()}\n".encode() + reply_payload(received))
        except OSError:
            pass
        finally:
            connection.close()

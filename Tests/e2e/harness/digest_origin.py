"""A raw TCP origin for tunnel tests: it reads until the client half-closes, then answers with the byte count
and sha256 of what it received followed by that many bytes of its own, and closes.

Each step needs the tunnel to pass a half-close on: the origin only answers once the client's FIN reached it,
and the client only sees the end once the origin's FIN came back.
"""

import hashlib
import socket
import threading

from .ports import LOOPBACK

ACCEPT_POLL_SECONDS = 0.2
# A connection that sends nothing for this long is dropped, so a broken test never hangs the origin.
IDLE_CLOSE_SECONDS = 20.0
READ_CHUNK_BYTES = 65536


def reply_payload(length: int) -> bytes:
    """The bytes the origin sends back after its summary line: a repeating pattern of `length` bytes."""
    pattern = bytes(range(256))
    return (pattern * (length // len(pattern) + 1))[:length]


class DigestOrigin:
    def __init__(self, host: str = LOOPBACK):
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((host, 0))
        self._listener.listen(16)
        self._listener.settimeout(ACCEPT_POLL_SECONDS)
        self.port = self._listener.getsockname()[1]
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._accept_loop, name="digest-origin", daemon=True)

    def start(self) -> "DigestOrigin":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=2 * ACCEPT_POLL_SECONDS + 1)
        self._listener.close()

    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                connection, _ = self._listener.accept()
            except socket.timeout:
                continue
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    @staticmethod
    def _serve(connection: socket.socket) -> None:
        connection.settimeout(IDLE_CLOSE_SECONDS)
        digest = hashlib.sha256()
        received = 0
        try:
            while block := connection.recv(READ_CHUNK_BYTES):
                digest.update(block)
                received += block.__len__()
            connection.sendall(f"{received} {digest.hexdigest()}\n".encode() + reply_payload(received))
        except OSError:
            pass
        finally:
            connection.close()

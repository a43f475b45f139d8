"""A TCP origin that sends a fixed number of bytes slowly, then closes: a long download that is still
running when the proxy is told to stop. It speaks no HTTP; a CONNECT tunnel carries its bytes as they are."""

import socket
import threading
import time

from .ports import LOOPBACK

CHUNK_BYTES = 256 * 1024


class PacedOrigin:
    def __init__(self, total_bytes: int, seconds: float):
        self.total_bytes = total_bytes
        self.pause = seconds / max(1, total_bytes // CHUNK_BYTES)
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind((LOOPBACK, 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def start(self) -> "PacedOrigin":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.listener.close()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._send, args=(connection,), daemon=True).start()

    def _send(self, connection: socket.socket) -> None:
        chunk = b"x" * CHUNK_BYTES
        with connection:
            try:
                sent = 0
                while sent < self.total_bytes:
                    piece = chunk[: self.total_bytes - sent]
                    connection.sendall(piece)
                    sent += len(piece)
                    time.sleep(self.pause)
                connection.shutdown(socket.SHUT_WR)
            except OSError:
                return

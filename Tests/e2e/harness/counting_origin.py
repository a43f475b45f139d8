"""A raw TCP origin that only counts: connections accepted and the bytes each one sent.

Tests point requests the proxy must refuse at it and then assert that nothing arrived. It never answers, so a
proxy that does forward something waits in vain and the test still sees the connection and its bytes.
"""

import socket
import threading
import time

from .loopback_server import LoopbackServer
from .ports import LOOPBACK

# A connection that sends nothing for this long is closed, so stray readers never pile up.
IDLE_CLOSE_SECONDS = 5.0
READ_CHUNK_BYTES = 65536


class CountingOrigin(LoopbackServer):
    name = "counting-origin"

    def __init__(self, host: str = LOOPBACK):
        super().__init__(host)
        self._lock = threading.Lock()
        self._received: list[bytearray] = []

    def reset(self) -> None:
        with self._lock:
            self._received = []

    @property
    def connection_count(self) -> int:
        with self._lock:
            return len(self._received)

    def received(self) -> list[bytes]:
        """What each accepted connection sent so far, in accept order."""
        with self._lock:
            return [bytes(data) for data in self._received]

    def settle(self, quiet_seconds: float) -> None:
        """Waits a fixed quiet period so a late connection from the proxy would be counted."""
        time.sleep(quiet_seconds)

    def serve(self, connection: socket.socket) -> None:
        buffer = bytearray()
        with self._lock:
            self._received.append(buffer)
        self._drain(connection, buffer)

    def _drain(self, connection: socket.socket, buffer: bytearray) -> None:
        connection.settimeout(IDLE_CLOSE_SECONDS)
        with connection:
            while not self.stopping:
                try:
                    block = connection.recv(READ_CHUNK_BYTES)
                except OSError:
                    return
                if not block:
                    return
                with self._lock:
                    buffer.extend(block)

"""A raw TCP origin that only counts: connections accepted and the bytes each one sent.

Tests point requests the proxy must refuse at it and then assert that nothing arrived. It never answers, so a
proxy that does forward something waits in vain and the test still sees the connection and its bytes.
"""

import socket
import threading
import time

from .ports import LOOPBACK

# A connection that sends nothing for this long is closed, so stray readers never pile up.
IDLE_CLOSE_SECONDS = 5.0
# How often the accept loop wakes to notice shutdown.
ACCEPT_POLL_SECONDS = 0.2
READ_CHUNK_BYTES = 65536


class CountingOrigin:
    def __init__(self, host: str = LOOPBACK):
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((host, 0))
        self._listener.listen(64)
        self._listener.settimeout(ACCEPT_POLL_SECONDS)
        self.host = host
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._received: list[bytearray] = []
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._accept_loop, name="counting-origin", daemon=True)

    def start(self) -> "CountingOrigin":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=2 * ACCEPT_POLL_SECONDS + 1)
        self._listener.close()

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

    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                connection, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            buffer = bytearray()
            with self._lock:
                self._received.append(buffer)
            threading.Thread(target=self._drain, args=(connection, buffer), daemon=True).start()

    def _drain(self, connection: socket.socket, buffer: bytearray) -> None:
        connection.settimeout(IDLE_CLOSE_SECONDS)
        with connection:
            while not self._stopping.is_set():
                try:
                    block = connection.recv(READ_CHUNK_BYTES)
                except OSError:
                    return
                if not block:
                    return
                with self._lock:
                    buffer.extend(block)

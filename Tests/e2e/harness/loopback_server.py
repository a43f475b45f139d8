"""A threaded TCP listener on loopback for the small raw origins: one thread accepts, one thread serves each
connection. Subclasses say what serving a connection means."""

import socket
import threading

from .ports import LOOPBACK

# How often the accept loop wakes to notice shutdown.
ACCEPT_POLL_SECONDS = 0.2
ACCEPT_BACKLOG = 64


class LoopbackServer:
    name = "loopback-server"

    def __init__(self, host: str = LOOPBACK):
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((host, 0))
        self._listener.listen(ACCEPT_BACKLOG)
        self._listener.settimeout(ACCEPT_POLL_SECONDS)
        self.host = host
        self.port = self._listener.getsockname()[1]
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._accept_loop, name=self.name, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=2 * ACCEPT_POLL_SECONDS + 1)
        self._listener.close()

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def serve(self, connection: socket.socket) -> None:
        """Runs on a thread of its own for each accepted connection; must close it."""
        raise NotImplementedError

    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                connection, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            threading.Thread(target=self.serve, args=(connection,), daemon=True).start()

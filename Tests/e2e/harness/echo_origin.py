"""A raw TCP origin that echoes every byte back on the same connection until the client closes, on one thread
with a selector, so a test can hold thousands of idle tunnels to it without a thread each."""

import selectors
import socket
import threading

from .ports import LOOPBACK

# How often the loop wakes to notice shutdown.
POLL_SECONDS = 0.2
ACCEPT_BACKLOG = 4096
READ_CHUNK_BYTES = 65536


class EchoOrigin:
    def __init__(self, host: str = LOOPBACK):
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((host, 0))
        self._listener.listen(ACCEPT_BACKLOG)
        self._listener.setblocking(False)
        self.port = self._listener.getsockname()[1]
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="echo-origin", daemon=True)

    def __enter__(self) -> "EchoOrigin":
        self._thread.start()
        return self

    def __exit__(self, *_) -> None:
        self._stopping.set()
        self._thread.join(timeout=2)
        for key in list(self._selector.get_map().values()):
            key.fileobj.close()
        self._selector.close()

    def _loop(self) -> None:
        while not self._stopping.is_set():
            for key, _ in self._selector.select(timeout=POLL_SECONDS):
                if key.fileobj is self._listener:
                    self._accept()
                else:
                    self._echo(key.fileobj)

    def _accept(self) -> None:
        try:
            connection, _ = self._listener.accept()
        except BlockingIOError:
            return
        # Echoes are a few bytes: a blocking send of them never waits on a reader that is not reading.
        connection.setblocking(True)
        self._selector.register(connection, selectors.EVENT_READ)

    def _echo(self, connection: socket.socket) -> None:
        try:
            data = connection.recv(READ_CHUNK_BYTES)
            if data:
                connection.sendall(data)
                return
        except OSError:
            pass
        self._selector.unregister(connection)
        connection.close()

"""A WebSocket (RFC 6455) server that sends every message back unchanged; nginx proxies /ws to it."""

import threading

from websockets.exceptions import ConnectionClosed
from websockets.sync.server import serve

from .ports import LOOPBACK


class WebSocketEcho:
    def __init__(self, host: str = LOOPBACK):
        self._server = serve(self._echo, host, 0)
        self.host = host
        self.port = self._server.socket.getsockname()[1]
        self._thread = threading.Thread(target=self._server.serve_forever, name="websocket-echo", daemon=True)

    def start(self) -> "WebSocketEcho":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._thread.join(timeout=5)

    @staticmethod
    def _echo(connection) -> None:
        try:
            for message in connection:
                connection.send(message)
        except ConnectionClosed:
            pass

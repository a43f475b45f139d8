"""The start and stop shared by the HTTP origins and stubs: a socketserver served on a daemon thread."""

import socketserver
import threading

# How long stop() waits for the serving thread once the server has shut down.
STOP_JOIN_SECONDS = 5


class ServedInBackground:
    """Mixin for a test server object that owns `self._server` (a socketserver) and serves it on a daemon thread
    named after it; `_serve_in_background` sets both up, `start` and `stop` run them."""

    def _serve_in_background(self, server: socketserver.BaseServer, thread_name: str) -> None:
        self._server = server
        self.port = server.server_address[1]
        self._thread = threading.Thread(target=server.serve_forever, name=thread_name, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=STOP_JOIN_SECONDS)

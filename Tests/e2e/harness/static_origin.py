"""A directory served as static files on a free loopback port, in clear or over TLS with a certificate from the
test CA: the "dumb" HTTP git repository and the HTTPS page that the SOCKS clients fetch.

Python's own `SimpleHTTPRequestHandler` (HTTP/1.0, one request per connection) serves the files; every path
asked is kept, so a test sees that its client reached this origin and what it asked for.
"""

import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

from .background_server import ServedInBackground
from .certificates import CertificatePair
from .ports import LOOPBACK
from .tls_server import HandshakeOnConnectionThread, server_context

# A connection that sends nothing this long is closed, so a stalled client never holds a thread for the run.
CONNECTION_TIMEOUT_SECONDS = 30.0


class _Handler(SimpleHTTPRequestHandler):
    timeout = CONNECTION_TIMEOUT_SECONDS

    def log_message(self, format, *args):
        pass

    def send_head(self):
        self.server.origin.record(self.path)
        return super().send_head()


class _Server(HandshakeOnConnectionThread):
    daemon_threads = True

    def __init__(self, origin: "StaticOrigin", root: Path):
        self.origin = origin
        self.tls_context = origin.tls_context
        super().__init__((LOOPBACK, 0), partial(_Handler, directory=str(root)))


class StaticOrigin(ServedInBackground):
    def __init__(self, root: Path, certificate: CertificatePair | None = None):
        self.root = root
        self.tls_context = server_context(certificate)
        self._lock = threading.Lock()
        self._paths: list[str] = []
        self._serve_in_background(_Server(self, root), "static-origin")

    def url(self, name: str, path: str = "/") -> str:
        scheme = "https" if self.tls_context is not None else "http"
        return f"{scheme}://{name}:{self.port}{path}"

    def authority(self, name: str) -> str:
        return f"{name}:{self.port}"

    def record(self, path: str) -> None:
        with self._lock:
            self._paths.append(path)

    @property
    def paths(self) -> list[str]:
        """Every request path served so far, in order."""
        with self._lock:
            return list(self._paths)

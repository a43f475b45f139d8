"""HTTP origins that say who they are: one per address of a name, all on the same port (a name's addresses
share the port of the URL), each answering with its own address, so a test counts the share of requests every
address got. One can be slow: it waits before answering each request, which is how a slow node looks here
(`tc netem` is not available in this kernel).

The servers are threads of the test process whose listening sockets were created inside a network namespace
(`NetworkNamespace.entered`), so they listen there and only there. HTTP/1.1 with Content-Length: a proxy may
keep its connections to them alive. Given a certificate they speak TLS instead (for the proxy's TLS
origination); the handshake runs on the connection's own thread.
"""

import threading
import time
from contextlib import nullcontext
from collections import Counter
from http.server import BaseHTTPRequestHandler

from .background_server import ServedInBackground
from .certificates import CertificatePair
from .network_namespace import NetworkNamespace
from .tls_server import HandshakeOnConnectionThread, server_context

# The response header, and the body, that name the address which answered.
IDENTITY_HEADER = "X-Origin-Address"
# How long the slow origin of the tests waits before answering each request.
SLOW_ANSWER_SECONDS = 0.080
# An idle keep-alive connection is closed after this long, so stray handler threads never pile up.
IDLE_CONNECTION_SECONDS = 30.0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = IDLE_CONNECTION_SECONDS
    server: "_IdentityServer"

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        origin = self.server.origin
        if origin.delay_seconds:
            time.sleep(origin.delay_seconds)
        origin.count_request()
        body = f"{origin.address}\n".encode()
        self.send_response(200)
        self.send_header(IDENTITY_HEADER, origin.address)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _IdentityServer(HandshakeOnConnectionThread):
    daemon_threads = True
    # Several origins share one port on different addresses; never a stale bind from an earlier test.
    allow_reuse_address = True

    def __init__(self, origin: "IdentityOrigin", port: int):
        self.origin = origin
        self.tls_context = origin.tls_context
        super().__init__((origin.address, port), _Handler)

    def process_request(self, request, client_address):
        self.origin.count_connection()
        super().process_request(request, client_address)


class IdentityOrigin(ServedInBackground):
    """One origin on `address:port` inside `namespace` (None: the test's own network; port 0: any free one),
    waiting `delay_seconds` before each answer; over TLS with `certificate`."""

    def __init__(self, namespace: NetworkNamespace | None, address: str, port: int = 0, delay_seconds: float = 0.0,
                 certificate: CertificatePair | None = None):
        self.address = address
        self.delay_seconds = delay_seconds
        self.tls_context = server_context(certificate)
        self._lock = threading.Lock()
        self.requests = 0
        self.connections = 0
        with namespace.entered() if namespace else nullcontext():
            self._serve_in_background(_IdentityServer(self, port), f"origin-{address}")

    def count_request(self) -> None:
        with self._lock:
            self.requests += 1

    def count_connection(self) -> None:
        with self._lock:
            self.connections += 1


class IdentityOrigins:
    """Origins on several addresses of one namespace (None: the test's own network), all on one port:
    `{address: delay_seconds}`; all over TLS with `certificate`."""

    def __init__(self, namespace: NetworkNamespace | None, delays: dict[str, float],
                 certificate: CertificatePair | None = None):
        self.origins: dict[str, IdentityOrigin] = {}
        port = 0
        try:
            for address, delay in delays.items():
                origin = IdentityOrigin(namespace, address, port, delay, certificate).start()
                port = origin.port
                self.origins[address] = origin
        except Exception:
            self.stop()
            raise
        self.port = port

    def stop(self) -> None:
        for origin in self.origins.values():
            origin.stop()

    def requests_per_address(self) -> Counter:
        return Counter({address: origin.requests for address, origin in self.origins.items()})

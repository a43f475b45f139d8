"""A small HTTP origin on the IPv6 loopback address only, for names that resolve to ::1 alone.

nginx listens on 127.0.0.1, so a proxy that reaches this origin must have connected over IPv6. Every GET is
answered `origin=ipv6 host=<Host> client=<the connecting address>` and counted, so a test sees both that the
request arrived and from which address family the proxy connected.
"""

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .background_server import ServedInBackground

IPV6_LOOPBACK = "::1"
# The first word of every answer, so a test can tell this origin from nginx.
ANSWER_PREFIX = "origin=ipv6"


class _Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6
    daemon_threads = True

    def __init__(self, origin: "Ipv6Origin"):
        self.origin = origin
        super().__init__((IPV6_LOOPBACK, 0), _Handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self.server.origin.count_request()
        body = f"{ANSWER_PREFIX} host={self.headers.get('Host', '')} client={self.client_address[0]}\n".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Ipv6Origin(ServedInBackground):
    def __init__(self):
        self._lock = threading.Lock()
        self._requests = 0
        self._serve_in_background(_Server(self), "ipv6-origin")
        self.host = IPV6_LOOPBACK

    @property
    def upstream(self) -> str:
        """How ipdirect's access log names this origin as an upstream."""
        return f"[{IPV6_LOOPBACK}]:{self.port}"

    def url(self, name: str, path: str = "/") -> str:
        return f"http://{name}:{self.port}{path}"

    def authority(self, name: str) -> str:
        return f"{name}:{self.port}"

    @property
    def request_count(self) -> int:
        with self._lock:
            return self._requests

    def count_request(self) -> None:
        with self._lock:
            self._requests += 1

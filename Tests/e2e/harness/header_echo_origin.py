"""An HTTP origin that answers every GET with the request head it received, byte for byte, so a test sees which
fields a proxy passed on and which it dropped (Proxy-Authorization must never arrive, RFC 9110 §11.7.1).

HTTP/1.1 with Content-Length, so a proxy may keep its connection to it alive; it listens on loopback, port 0.
"""

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .background_server import ServedInBackground
from .ports import LOOPBACK

# An idle keep-alive connection is closed after this long, so stray handler threads never pile up.
IDLE_CONNECTION_SECONDS = 30.0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = IDLE_CONNECTION_SECONDS

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        body = (self.requestline + "\r\n" + "".join(f"{name}: {value}\r\n" for name, value in self.headers.items())
                ).encode("latin-1")
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True


class HeaderEchoOrigin(ServedInBackground):
    def __init__(self, host: str = LOOPBACK):
        self._serve_in_background(_Server((host, 0), _Handler), "header-echo-origin")

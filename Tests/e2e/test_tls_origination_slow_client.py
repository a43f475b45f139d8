"""A large response over TLS the proxy originates reaches a client that reads slowly whole and without waiting:
reading the origin pauses while the client's output is full and resumes as it drains, the origin's
connection staying open all the while, so only the proxy's own resumption moves the rest."""

import hashlib
import os
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler

from harness.ports import LOOPBACK
from harness.raw_http import get_request
from harness.tls_origination import tls_origination_additions
from harness.tls_server import HandshakeOnConnectionThread, server_context

# More than the kernel's socket buffers on both sides hold, and the proxy's 512 KiB toward the client.
BODY_BYTES = 16 * 1024 * 1024
CLIENT_RECEIVE_BUFFER = 64 * 1024
# Long enough that the proxy's buffers toward the client fill and it stops reading the origin.
CLIENT_PAUSE_SECONDS = 2.0
# Far below the response timeout (60 s): a stalled transfer fails here instead of finishing late.
READ_TIMEOUT_SECONDS = 15.0
NAME = "a.test"


class LargeBodyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    body = b""

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)
        self.wfile.flush()
        # Sent in full; the connection stays open, so no FIN wakes the proxy's read of it.

    def log_message(self, *args):
        pass


def test_a_large_tls_response_reaches_a_slow_client_whole(start_ipdirect, certificates):
    body = os.urandom(BODY_BYTES)
    LargeBodyHandler.body = body
    origin = HandshakeOnConnectionThread((LOOPBACK, 0), LargeBodyHandler)
    origin.tls_context = server_context(certificates.virtual_hosts[NAME])
    threading.Thread(target=origin.serve_forever, daemon=True).start()
    try:
        port = origin.server_address[1]
        own = start_ipdirect(tls_origination_additions(https_upgrade=[f"{NAME}:{port}"]))
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as client:
            # Before connecting, so that the window it advertises stays small.
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, CLIENT_RECEIVE_BUFFER)
            client.settimeout(READ_TIMEOUT_SECONDS)
            client.connect(own.address)
            client.sendall(get_request(f"http://{NAME}/large", NAME))
            first = client.recv(4096)
            time.sleep(CLIENT_PAUSE_SECONDS)
            head, _, rest = first.partition(b"\r\n\r\n")
            received = bytearray(rest)
            assert head.startswith(b"HTTP/1.1 200"), head
            started = time.monotonic()
            while len(received) < BODY_BYTES:
                chunk = client.recv(65536)
                assert chunk, f"connection closed after {len(received)} of {BODY_BYTES} body bytes"
                received += chunk
        assert hashlib.sha256(received).hexdigest() == hashlib.sha256(body).hexdigest()
        assert time.monotonic() - started < READ_TIMEOUT_SECONDS
    finally:
        origin.shutdown()
        origin.server_close()


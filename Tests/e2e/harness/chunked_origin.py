"""A raw origin that answers every request on a connection with the same small chunked response, the framing an
HTTP/1.0 client cannot read the end of (RFC 9112 §6.1)."""

import socket

from .loopback_server import LoopbackServer

CHUNKED_BODY = b"hello"
RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
            + b"%x\r\n%s\r\n0\r\n\r\n" % (len(CHUNKED_BODY), CHUNKED_BODY))
# A connection that sends nothing for this long is closed, so stray readers never pile up.
IDLE_CLOSE_SECONDS = 5.0
READ_CHUNK_BYTES = 65536


class ChunkedOrigin(LoopbackServer):
    name = "chunked-origin"

    def serve(self, connection: socket.socket) -> None:
        connection.settimeout(IDLE_CLOSE_SECONDS)
        buffer = b""
        with connection:
            while not self.stopping:
                while b"\r\n\r\n" not in buffer:
                    try:
                        block = connection.recv(READ_CHUNK_BYTES)
                    except OSError:
                        return
                    if not block:
                        return
                    buffer += block
                # Requests through the proxy here carry no body.
                buffer = buffer.split(b"\r\n\r\n", 1)[1]
                connection.sendall(RESPONSE)

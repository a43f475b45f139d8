#!/usr/bin/env python3
"""Opens COUNT TLS connections one after another, each a full handshake (no session resumption) and one GET of
PATH read whole, either straight to ADDRESS:443 (a connection that nftables redirects to ipdirect's transparent
listener) or through a CONNECT tunnel of the proxy at PROXY. Verifies the certificate for NAME against CA.
Prints the number of connections that got a whole 200 answer.

Usage: tls_connections.py COUNT NAME ADDRESS PATH CA [PROXY_HOST:PROXY_PORT]
"""

import socket
import ssl
import sys

TIMEOUT_SECONDS = 10


def open_connection(address, name, proxy, port=443):
    if proxy is None:
        return socket.create_connection((address, port), timeout=TIMEOUT_SECONDS)
    proxy_host, proxy_port = proxy.rsplit(":", 1)
    connection = socket.create_connection((proxy_host, int(proxy_port)), timeout=TIMEOUT_SECONDS)
    connection.sendall(f"CONNECT {name}:{port} HTTP/1.1\r\nHost: {name}:{port}\r\n\r\n".encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = connection.recv(4096)
        if not chunk:
            raise OSError("the proxy closed the connection before its answer")
        answer += chunk
    if not answer.startswith(b"HTTP/1.1 200"):
        raise OSError(f"CONNECT refused: {answer.splitlines()[0]!r}")
    return connection


def fetch(context, address, name, path, proxy, port=443):
    """One TLS connection to `name` on `port` (straight to `address`, or through a CONNECT tunnel of `proxy`) and
    one GET of `path` read whole; whether the answer was a 200."""
    with open_connection(address, name, proxy, port) as raw:
        with context.wrap_socket(raw, server_hostname=name) as tls:
            tls.sendall(f"GET {path} HTTP/1.1\r\nHost: {name}\r\nConnection: close\r\n\r\n".encode())
            answer = b""
            while chunk := tls.recv(65536):
                answer += chunk
    return answer.startswith(b"HTTP/1.1 200")


def main():
    count, name, address, path, ca = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
    proxy = sys.argv[6] if len(sys.argv) > 6 else None
    context = ssl.create_default_context(cafile=ca)
    # Every connection a full handshake, as a new program's would be.
    context.options |= ssl.OP_NO_TICKET
    succeeded = 0
    for _ in range(count):
        try:
            succeeded += fetch(context, address, name, path, proxy)
        except (OSError, ssl.SSLError) as error:
            print(f"failed: {error}", file=sys.stderr)
    print(succeeded)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The slow node of the scheduling scenario: an HTTP/1.1 origin that waits a fixed time before each answer and
counts the requests it receives on each of its ports.

    slow_origin.py --address 192.0.2.2 --ports 8081,8082,8083 --delay-ms 80 --body FILE --control SOCKET

Each port belongs to one proxy, so the counts say which proxy sent what, even when a proxy's request arrives
long after its own run (a connect to the dead address that the kernel gave up on minutes later). A request is
counted when its head has arrived, before the wait, as nginx counts the fast node's. The counts are read from
the Unix socket `--control` (a path in the run directory, reachable from outside the network namespace):
connect, and it writes one line `PORT=COUNT PORT=COUNT ...` and closes.

Keep-alive as HTTP/1.1 has it; `Connection: close` is honoured. One thread per connection: the wait is a sleep,
so a few dozen concurrent requests cost no CPU to speak of.
"""

import argparse
import http.server
import os
import socket
import socketserver
import threading
import time

# The kernel's accept queue for each port: new-connection runs open connections in bursts.
LISTEN_BACKLOG = 1024
MILLISECONDS_PER_SECOND = 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", required=True)
    parser.add_argument("--ports", required=True, help="comma-separated")
    parser.add_argument("--delay-ms", type=float, required=True)
    parser.add_argument("--body", required=True, help="file served for every GET")
    parser.add_argument("--control", required=True, help="Unix socket path that reports the counts")
    arguments = parser.parse_args()
    with open(arguments.body, "rb") as body_file:
        body = body_file.read()
    ports = [int(port) for port in arguments.ports.split(",")]
    counts = {port: 0 for port in ports}
    lock = threading.Lock()
    delay = arguments.delay_ms / MILLISECONDS_PER_SECOND

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Head and body leave in one write; without this a second small write could wait for a delayed ACK.
        disable_nagle_algorithm = True

        def do_GET(self):
            with lock:
                counts[self.server.server_address[1]] += 1
            time.sleep(delay)
            closing = "Connection: close\r\n" if self.close_connection else ""
            head = (f"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {len(body)}\r\n"
                    f"X-Node: slow\r\n{closing}\r\n").encode()
            self.wfile.write(head + body)

        def log_message(self, format, *args):
            pass  # no per-request logging, like every other server in the benchmark

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        request_queue_size = LISTEN_BACKLOG

    servers = [Server((arguments.address, port), Handler) for port in ports]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()

    if os.path.exists(arguments.control):
        os.remove(arguments.control)
    control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    control.bind(arguments.control)
    control.listen()
    while True:
        connection, _ = control.accept()
        with connection, lock:
            connection.sendall((" ".join(f"{port}={count}" for port, count in counts.items()) + "\n").encode())


if __name__ == "__main__":
    main()

"""Total time of single requests through a proxy, one after another, each on a new client connection:
connect, send an absolute-form GET with `Connection: close` (RFC 9112 §9.6), read the whole response.

This is what a client that has just started waits for, so unlike wrk's latency it includes connect time, and
through a proxy it includes everything the proxy does before it can forward: resolving the host (from its
cache or not) and connecting upstream. The client is plain Python; its own cost is the same for every proxy.
"""

import math
import socket
import time

# One request: a cold name may wait on a resolver timeout (ipdirect's default timeout_ms is 2 s).
REQUEST_TIMEOUT_SECONDS = 10
# Upper bound on one round of requests, whatever the proxy does.
ROUND_DEADLINE_SECONDS = 300
RECEIVE_CHUNK = 65536
HEADER_END = b"\r\n\r\n"
MILLISECONDS_PER_SECOND = 1000
# Failures quoted in the problems list; the rest are only counted.
QUOTED_FAILURES = 3


class RequestTimes:
    """Durations of the requests answered 200 with the whole body, and what went wrong with the others."""

    def __init__(self):
        self.milliseconds = []
        self.failures = []

    def __str__(self):
        if not self.milliseconds:
            return f"no successful request, {len(self.failures)} failed"
        failed = f", {len(self.failures)} failed" if self.failures else ""
        return (f"{len(self.milliseconds)} requests, p50 {self.percentile(50):.3f} ms, "
                f"p99 {self.percentile(99):.3f} ms{failed}")

    def percentile(self, percent):
        """Nearest-rank percentile (the smallest duration that at least `percent`% of requests did not
        exceed), or None without any successful request."""
        if not self.milliseconds:
            return None
        ordered = sorted(self.milliseconds)
        rank = max(1, math.ceil(percent / 100 * len(ordered)))
        return ordered[rank - 1]

    def failure_summary(self):
        quoted = "; ".join(self.failures[:QUOTED_FAILURES])
        more = f" (and {len(self.failures) - QUOTED_FAILURES} more)" if len(self.failures) > QUOTED_FAILURES else ""
        return f"{len(self.failures)} failed: {quoted}{more}"


def time_requests(proxy_port, urls):
    """GETs each of `urls` through the proxy at 127.0.0.1:`proxy_port`, in order, one connection each."""
    times = RequestTimes()
    deadline = time.monotonic() + ROUND_DEADLINE_SECONDS
    for url in urls:
        if time.monotonic() >= deadline:
            times.failures.append(f"round stopped after {ROUND_DEADLINE_SECONDS} s, "
                                  f"{len(urls) - len(times.milliseconds) - len(times.failures)} requests not sent")
            break
        request = (f"GET {url} HTTP/1.1\r\nHost: {url.split('/')[2]}\r\nUser-Agent: ipdirect-bench\r\n"
                   f"Connection: close\r\n\r\n").encode()
        started = time.perf_counter()
        try:
            with socket.create_connection(("127.0.0.1", proxy_port), timeout=REQUEST_TIMEOUT_SECONDS) as connection:
                connection.sendall(request)
                status_line, complete = _read_response(connection)
        except OSError as error:
            times.failures.append(f"{url}: {error}")
            continue
        elapsed = time.perf_counter() - started
        if status_line.split()[1:2] != [b"200"] or not complete:
            answer = status_line.decode(errors="replace").strip() or "no answer"
            times.failures.append(f"{url}: {answer}{'' if complete else ' (body cut short)'}")
            continue
        times.milliseconds.append(elapsed * MILLISECONDS_PER_SECOND)
    return times


def _read_response(connection):
    """(status line, whether the body framed by Content-Length arrived whole). The origin and the proxies'
    error pages all send Content-Length; without one the response runs to the close."""
    received = b""
    while HEADER_END not in received:
        chunk = connection.recv(RECEIVE_CHUNK)
        if not chunk:
            return received.split(b"\r\n", 1)[0], False
        received += chunk
    head, _, body = received.partition(HEADER_END)
    lines = head.split(b"\r\n")
    length = None
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while length is None or len(body) < length:
        chunk = connection.recv(RECEIVE_CHUNK)
        if not chunk:
            return lines[0], length is None
        body += chunk
    return lines[0], True

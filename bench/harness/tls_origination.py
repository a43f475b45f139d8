"""TLS origination figures: the client sends an absolute-form `https://` request on a plain connection
(RFC 9112 §3.2.2) and the proxy itself speaks TLS to the origin, verifying its certificate.

This is not the comparison the main table makes: direct has nothing to originate, and a proxy that cannot do it
gets no figures. Each proxy is first asked for one https:// page; only one that answers it with the page is
measured, so a proxy that forwards the request as plain HTTP to the TLS port (tinyproxy 1.11; nginx then
answers 400) shows what it answered instead.

Runs, each `settings.seconds` long with the shared wrk shape, all with kept-alive client connections so the
client side costs the same in every run and the figures differ only upstream:
  pooled      the proxy as configured for the main table: upstream TLS connections are pooled and reused.
  resumed     a second instance that keeps no idle upstream connection (ipdirect `upstream_max_idle_per_host
              = 0`, squid `server_persistent_connections off`): every request opens a new TCP connection
              and a new TLS session to the origin, which allows resumption (tickets).
  full        the same instance against an origin port that refuses resumption, so every request pays for a
              full handshake. ipdirect has no switch to turn its own resumption off; refusing it at the
              origin gives the same handshakes without one.
  plain       the same instance with http:// targets: a new upstream TCP connection per request without TLS,
              the reference that shows what the handshakes add.
Before the timed runs, two requests on one connection to `/session-reused` (nginx's $ssl_session_reused) show
whether the second upstream connection really resumed, for each origin port.
"""

import socket
import time

from harness.daemon import DaemonError
from harness.targets import BENCH_HOST, SMALL_FILE
from harness.wrk import WrkError, run_wrk

# Targets that might originate TLS; direct has no proxy in between.
CANDIDATES = ("ipdirect", "tinyproxy", "squid")
# The origin location that reports $ssl_session_reused: "r" when resumed, "." after a full handshake.
SESSION_PATH = "/session-reused"
RESUMED = "r"
MICROSECONDS_PER_SECOND = 1_000_000
# One probe request: a handshake and a tiny page, on a busy machine.
PROBE_TIMEOUT_SECONDS = 10
RECEIVE_CHUNK = 65536
HEADER_END = b"\r\n\r\n"
# (key, label) of the timed runs, in the order they are taken and printed.
RUNS = (
    ("pooled", "keep-alive requests/s, pooled upstream TLS connections"),
    ("resumed", "requests/s, new upstream TLS connection per request, origin allows resumption"),
    ("full", "requests/s, new upstream TLS connection per request, full handshakes"),
    ("plain", "requests/s, new upstream TCP connection per request, plain http:// (reference)"),
)


class ProbeError(Exception):
    """The proxy did not answer an https:// request with the origin's page."""


class TLSOriginationResult:
    """Figures for one proxy; `skipped` says why there are none. `runs[key]` is (WrkResult, CPU µs/request)."""

    def __init__(self, name):
        self.name = name
        self.skipped = None
        self.cannot_originate = False  # asked, and answered with something other than the page
        self.runs = {}
        self.resumption = {}  # "resumed" / "full" -> what the second upstream connection reported
        self.problems = []

    def __str__(self):
        return f"{self.name}: {'skipped: ' + self.skipped if self.skipped else 'measured'}"

    def requests_per_second(self, key):
        run = self.runs.get(key)
        return run[0].requests_per_second if run else None

    def cpu_us_per_request(self, key):
        run = self.runs.get(key)
        return run[1] if run else None


def measure_tls_origination(name, make_daemon, environment, settings, log):
    """`make_daemon(pooled)` returns an unstarted Daemon: the main-table configuration when `pooled`, else
    one that keeps no idle upstream connection."""
    result = TLSOriginationResult(name)
    https_target = lambda port, path: f"https://{BENCH_HOST}:{port}{path}"
    daemon = make_daemon(True)
    try:
        daemon.start()
        status_line, _ = _probe(daemon.port, https_target(environment.tls_port, SESSION_PATH))[0]
        if status_line.split()[1:2] != [b"200"]:
            result.cannot_originate = True
            result.skipped = (f"does not originate TLS: answered GET https://... on a plain connection with "
                              f"{status_line.decode(errors='replace').strip() or 'nothing'}")
            log(f"  {result.skipped}")
            return result
        wrk_log = environment.log(f"wrk-tls-{name}.txt")
        load = dict(connections=settings.connections, threads=settings.threads, log_path=wrk_log)
        pooled_target = https_target(environment.tls_port, f"/{SMALL_FILE}")
        _run(daemon, pooled_target, settings.warm_up_seconds, load)
        result.runs["pooled"] = _timed(daemon, pooled_target, settings.seconds, load)
        log(f"  TLS pooled {result.runs['pooled'][0]}")
        daemon.stop()

        daemon = make_daemon(False)
        daemon.start()
        new_connection_targets = {
            "resumed": https_target(environment.tls_port, f"/{SMALL_FILE}"),
            "full": https_target(environment.tls_full_handshake_port, f"/{SMALL_FILE}"),
            "plain": f"http://{BENCH_HOST}:{environment.http_port}/{SMALL_FILE}",
        }
        for key, port in (("resumed", environment.tls_port), ("full", environment.tls_full_handshake_port)):
            answers = _probe(daemon.port, https_target(port, SESSION_PATH), requests=2)
            result.resumption[key] = answers[-1][1].strip().decode(errors="replace") if len(answers) == 2 else "?"
        log(f"  TLS second upstream session resumed: {result.resumption}")
        for key, target in new_connection_targets.items():
            result.runs[key] = _timed(daemon, target, settings.seconds, load)
            log(f"  TLS {key} {result.runs[key][0]}")
    except (DaemonError, ProbeError, WrkError) as error:
        result.problems.append(f"TLS origination: {str(error).splitlines()[0]}")
        log(f"  {error}")
    finally:
        daemon.stop()
    for key, (run, _) in result.runs.items():
        if run.error_count:
            errors = ", ".join(f"{kind} {count}" for kind, count in run.errors.items() if count)
            result.problems.append(f"TLS origination {key} run had errors: {errors}")
    if result.resumption.get("resumed") not in (None, RESUMED):
        result.problems.append("TLS origination: the second upstream connection did not resume its session "
                               f"(origin saw {result.resumption['resumed']!r}), so the 'allows resumption' "
                               "run made full handshakes too")
    if result.resumption.get("full") == RESUMED:
        result.problems.append("TLS origination: the origin port meant to refuse resumption resumed a session, "
                               "so the 'full handshakes' run is not what it says")
    return result


def _timed(daemon, request_target, seconds, load):
    """One wrk run and the daemon's CPU time during it per request served: (WrkResult, µs or None)."""
    before = daemon.cpu_seconds()
    outcome = _run(daemon, request_target, seconds, load)
    spent = daemon.cpu_seconds() - before
    return outcome, (spent * MICROSECONDS_PER_SECOND / outcome.requests if outcome.requests else None)


def _run(daemon, request_target, seconds, load):
    authority = request_target.split("/")[2]
    return run_wrk(f"http://127.0.0.1:{daemon.port}/", request_target, authority, seconds=seconds, **load)


def _probe(port, url, requests=1):
    """Sends `requests` GETs for `url` on one connection; returns (status line, body) for each answer
    received before the connection closed."""
    authority = url.split("/")[2]
    request = f"GET {url} HTTP/1.1\r\nHost: {authority}\r\nUser-Agent: ipdirect-bench\r\n\r\n".encode()
    answers = []
    deadline = time.monotonic() + PROBE_TIMEOUT_SECONDS * requests
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=PROBE_TIMEOUT_SECONDS) as connection:
            pending = b""
            for _ in range(requests):
                connection.sendall(request)
                answer, pending = _read_response(connection, pending, deadline)
                if answer is None:
                    break
                answers.append(answer)
    except OSError as error:
        raise ProbeError(f"probe of {url} through port {port} failed: {error}") from error
    if not answers:
        raise ProbeError(f"no answer to GET {url} through port {port}")
    return answers


def _read_response(connection, received, deadline):
    """One response framed by Content-Length (all the origin and the proxies' errors use it, or close);
    returns ((status line, body), bytes left over) or (None, b"") when the connection closed first."""
    while HEADER_END not in received:
        if time.monotonic() >= deadline:
            raise ProbeError("timed out waiting for a response head")
        chunk = connection.recv(RECEIVE_CHUNK)
        if not chunk:
            return None, b""
        received += chunk
    head, _, body = received.partition(HEADER_END)
    lines = head.split(b"\r\n")
    length = None
    for line in lines[1:]:
        field, _, value = line.partition(b":")
        if field.strip().lower() == b"content-length":
            length = int(value.strip())
    while length is None or len(body) < length:
        if time.monotonic() >= deadline:
            break
        chunk = connection.recv(RECEIVE_CHUNK)
        if not chunk:
            break
        body += chunk
    if length is None:
        return (lines[0], body), b""
    return (lines[0], body[:length]), body[length:]

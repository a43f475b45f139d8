"""The sequence of measurements for one target, in an order that keeps each figure clean."""

import os
import time

from harness import idle
from harness.download import DownloadError, measure_download
from harness.idle_tunnel import measure_idle_tunnels
from harness.socks import socks5_refusal
from harness.targets import BENCH_HOST, LARGE_FILE, LARGE_FILE_BYTES
from harness.wrk import WrkError, run_wrk

MICROSECONDS_PER_SECOND = 1_000_000
# Share of requests followed by a read error above which the server evidently closes after every response.
CLOSED_AFTER_EACH_RESPONSE = 0.9
# The kinds of figure a target may be unable to give (TargetResult.cannot): the HTTP proxy rows (idle
# connections, wrk runs, the CONNECT tunnel), the CONNECT tunnel rows alone, and the SOCKS5 tunnel rows.
HTTP_PROXY = "HTTP proxy"
CONNECT = "CONNECT"
SOCKS5 = "SOCKS5"


class Settings:
    """Load shape and durations, shared by every target so the columns compare."""

    def __init__(self, seconds, latency_seconds, warm_up_seconds, connections, threads, idle_connections,
                 idle_tunnels):
        self.seconds = seconds
        self.latency_seconds = latency_seconds
        self.warm_up_seconds = warm_up_seconds
        self.connections = connections
        self.threads = threads
        self.idle_connections = idle_connections
        self.idle_tunnels = idle_tunnels

    def __str__(self):
        return (f"wrk {self.threads} threads x {self.connections} connections for {self.seconds} s "
                f"(after {self.warm_up_seconds} s warm-up); latency 1 connection for {self.latency_seconds} s; "
                f"{self.idle_connections} idle connections; {self.idle_tunnels} idle CONNECT tunnels")


class TargetResult:
    """Everything measured for one target; a measurement that failed is None and explained in `problems`."""

    def __init__(self, name):
        self.name = name
        self.skipped = None
        self.start_rss_kib = None
        self.idle = {}
        self.keep_alive = None
        self.keep_alive_cpu_us = None
        self.new_connection = None
        self.new_connection_cpu_us = None
        self.latency = None
        self.download = None  # the large file over plain HTTP through the proxy (absolute-form)
        self.idle_tunnels = None
        self.tunnel = None
        self.socks_tunnel = None
        self.cannot = {}  # HTTP_PROXY, CONNECT or SOCKS5 -> why this target has none of those figures
        self.problems = []

    def __str__(self):
        return f"{self.name}: {'skipped: ' + self.skipped if self.skipped else 'measured'}"


def measure_target(target, environment, settings, log):
    result = TargetResult(target.name)
    if target.speaks_http_proxy:
        _measure_http_proxy(target, result, environment, settings, log)
    else:
        result.cannot[HTTP_PROXY] = "a SOCKS server only: no HTTP proxy requests, no CONNECT"
        target.restart()
        time.sleep(idle.SETTLE_SECONDS)
        result.start_rss_kib = target.daemon.rss_kib()
    _measure_socks_tunnel(target, result, environment, log)
    if not target.daemon.is_running():
        result.problems.append(f"{target.name} exited during the run; see {os.path.basename(target.daemon.log_path)}")
    return result


def _measure_http_proxy(target, result, environment, settings, log):
    """Idle connections and tunnels, the wrk runs, the plain-HTTP download and the CONNECT tunnel; leaves the
    target running."""
    wrk_log = environment.log(f"wrk-{target.name}.txt")

    # Memory first, each mode on a fresh process, before load runs grow the allocator's pools.
    for mode in idle.MODES:
        target.restart()
        time.sleep(idle.SETTLE_SECONDS)
        if result.start_rss_kib is None:
            result.start_rss_kib = target.daemon.rss_kib()
        outcome = idle.measure_idle(target.daemon, target.port, target.request_target, target.host_header,
                                    settings.idle_connections, mode)
        log(f"  idle {outcome}")
        result.idle[mode] = outcome
        if outcome.held < outcome.opened:
            result.problems.append(f"idle ({mode}): {target.name} closed "
                                   f"{outcome.opened - outcome.held} of {outcome.opened} idle connections")
    if not target.cannot_connect:
        _measure_idle_tunnels(target, result, environment, settings, log)

    url = f"http://127.0.0.1:{target.port}/"
    wrk = lambda **shape: run_wrk(url, target.request_target, target.host_header, log_path=wrk_log, **shape)
    load = dict(connections=settings.connections, threads=settings.threads)
    try:
        wrk(seconds=settings.warm_up_seconds, **load)
        result.keep_alive, result.keep_alive_cpu_us = _with_cpu(
            target, lambda: wrk(seconds=settings.seconds, **load))
        log(f"  keep-alive {result.keep_alive}")
        result.new_connection, result.new_connection_cpu_us = _with_cpu(
            target, lambda: wrk(seconds=settings.seconds, close=True, **load))
        log(f"  new-connection {result.new_connection}")
        result.latency = wrk(seconds=settings.latency_seconds, connections=1, threads=1)
        log(f"  one connection {result.latency}")
    except WrkError as error:
        result.problems.append(f"wrk: {error}")
    for label, run in (("keep-alive", result.keep_alive), ("new-connection", result.new_connection),
                       ("latency", result.latency)):
        if run and run.error_count:
            errors = ", ".join(f"{name} {count}" for name, count in run.errors.items() if count)
            result.problems.append(f"{label} run had errors: {errors}{_explain(run)}")

    result.download = _download(target, result, "plain-HTTP download", "http", environment.http_port, log)
    if target.cannot_connect:
        result.cannot[CONNECT] = target.cannot_connect
        log(f"  tunnel: cannot: {target.cannot_connect}")
        return
    result.tunnel = _download(target, result, "tunnel", "https", environment.tls_port, log,
                              ca_certificate=environment.certificates.ca_certificate)


def _download(target, result, label, scheme, port, log, ca_certificate=None):
    """The large file from the origin's `scheme` port: straight from it for direct, else through the target (a
    CONNECT tunnel for https, an absolute-form request for http). None, with a problem noted, when it failed."""
    url = f"{scheme}://{BENCH_HOST}:{port}/{LARGE_FILE}"
    if target.is_direct:
        route = dict(resolve=f"{BENCH_HOST}:{port}:127.0.0.1")
    else:
        route = dict(proxy_url=f"http://127.0.0.1:{target.port}", tunnel=scheme == "https")
    try:
        outcome = measure_download(target.daemon, url, LARGE_FILE_BYTES, ca_certificate, **route)
    except DownloadError as error:
        result.problems.append(f"{label}: {error}")
        return None
    log(f"  {label} {outcome}")
    return outcome


def _measure_idle_tunnels(target, result, environment, settings, log):
    """Idle CONNECT tunnels on a fresh process; for direct, idle connections to the origin's TLS port."""
    target.restart()
    time.sleep(idle.SETTLE_SECONDS)
    port = environment.tls_port if target.is_direct else target.port
    outcome = measure_idle_tunnels(target.daemon, port, f"{BENCH_HOST}:{environment.tls_port}",
                                   settings.idle_tunnels, through_proxy=not target.is_direct)
    log(f"  idle {outcome}")
    result.idle_tunnels = outcome
    if outcome.held < outcome.opened:
        result.problems.append(f"idle tunnels: {target.name} held {outcome.held} of {outcome.opened}"
                               f"{' (answered: ' + outcome.refusal + ')' if outcome.refusal else ''}")


def _measure_socks_tunnel(target, result, environment, log):
    """The same download through a SOCKS5 tunnel, from the target's running process, if it speaks SOCKS5."""
    if target.is_direct:
        # No proxy in between: the direct download already taken is the baseline of both tunnels.
        result.socks_tunnel = result.tunnel
        return
    refusal = socks5_refusal(target.port)
    if refusal:
        result.cannot[SOCKS5] = refusal
        log(f"  SOCKS5 tunnel: cannot: {refusal}")
        return
    large_url = f"https://{BENCH_HOST}:{environment.tls_port}/{LARGE_FILE}"
    try:
        result.socks_tunnel = measure_download(target.daemon, large_url, LARGE_FILE_BYTES,
                                               environment.certificates.ca_certificate,
                                               socks_proxy=f"127.0.0.1:{target.port}")
        log(f"  SOCKS5 tunnel {result.socks_tunnel}")
    except DownloadError as error:
        result.problems.append(f"SOCKS5 tunnel: {error}")


def _explain(run):
    """A read error for (nearly) every request means the server closed each connection after one response
    without saying so (no Connection: close), and wrk reconnected; the requests themselves succeeded."""
    if run.errors["read_errors"] >= CLOSED_AFTER_EACH_RESPONSE * run.requests > 0:
        return " (the server closes every connection after one response without announcing it; " \
               "wrk reconnects, and the requests counted all succeeded)"
    return ""


def _with_cpu(target, run):
    """Runs one load test and charges the server's CPU time during it to each request served."""
    before = target.daemon.cpu_seconds()
    outcome = run()
    spent = target.daemon.cpu_seconds() - before
    per_request = spent * MICROSECONDS_PER_SECOND / outcome.requests if outcome.requests else None
    return outcome, per_request

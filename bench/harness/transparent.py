"""Transparent mode against CONNECT: what a TLS connection costs ipdirect when nftables redirects it to the
transparent listener (original destination, ClientHello read, name resolved, tunnel) beside the same connection
through a CONNECT tunnel, and what a gibibyte costs through each.

Two network namespaces of the run's own: a gateway where ipdirect runs (as root, which its rules exempt) and the
clients run as nobody, whose connections to 203.0.113.10:443 the output chain of `ipdirect nft-rules` redirects;
and an origin namespace behind a veth pair, where nginx serves the run's files over TLS on that address (an
address on the gateway's own loopback would be local, and never redirected). The CONNECT clients reach ipdirect
on the gateway's loopback, which is never redirected either.

Per round, in an order that alternates: COUNT new TLS connections (each a full handshake and one 1 KiB GET,
`tls_connections.py`) and DOWNLOADS downloads of the 100 MiB file with curl, each way; ipdirect's CPU time (from
/proc) is charged to what the round moved. The medians over the rounds are reported with their ratio.

CPU time on this machine moves by a factor of two from round to round for the same binary, so the same two ways
are then counted as bench/callgrind and bench/syscalls count requests: ipdirect with one worker, in a fresh
process under `valgrind --tool=callgrind` and then under `strace -f -c` for N1 and for N2 connections (or
downloads), the figure being the difference over N2 - N1.
"""

import os
import shutil
import signal
import statistics
import subprocess
import time
import types

from harness.counted_targets import WRAPPED_START_TIMEOUT_SECONDS, served
from harness.daemon import Daemon, DaemonError
from harness.targets import BENCH_HOST, LARGE_FILE, LARGE_FILE_BYTES, SMALL_FILE

GATEWAY = "ipd-bench-tpg"
ORIGIN = "ipd-bench-tpo"
GATEWAY_END, ORIGIN_END = "ipdbtg", "ipdbto"
GATEWAY_LINK, ORIGIN_LINK = "10.251.0.1", "10.251.0.2"
ORIGIN_ADDRESS = "203.0.113.10"
PROXY_PORT = 3101
TRANSPARENT_PORT = 3102
NOBODY = "65534"
COUNT = 3000
DOWNLOADS = 5
REDIRECT, CONNECT = "redirect", "CONNECT"
# Connections and 100 MiB downloads of the counted runs (N1, N2), each in a fresh ipdirect.
COUNTED_CONNECTIONS = (100, 300)
COUNTED_DOWNLOADS = (1, 3)
# SIGINT: ipdirect drains and exits 0, so callgrind and strace write their counts.
COUNTED_STOP = types.SimpleNamespace(stop_signal=signal.SIGINT, signal_again=False)
COMMAND_TIMEOUT_SECONDS = 600
HARNESS_DIR = os.path.dirname(os.path.abspath(__file__))


class TransparentError(Exception):
    """The namespaces, the origin or ipdirect could not be set up; nothing was measured."""


def _run(argv, namespace=None, check=True, timeout=COMMAND_TIMEOUT_SECONDS):
    if namespace:
        argv = ["ip", "netns", "exec", namespace, *argv]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if check and result.returncode != 0:
        raise TransparentError(f"{' '.join(argv)}: exit {result.returncode}: {result.stderr.strip()[-400:]}")
    return result


def _as_nobody(argv):
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv]


class TransparentResult:
    def __init__(self):
        self.rounds = []  # dicts: way -> {"connections": n, "connection_cpu": s, "bytes": n, "bytes_cpu": s}
        self.problem = None
        # kind ("instructions" or "calls") -> unit ("connection" or "MiB") -> way -> figure per unit
        self.counted = {}

    def counted_figure(self, kind, unit, way):
        return self.counted.get(kind, {}).get(unit, {}).get(way)

    def cpu_us_per_connection(self, way):
        values = [r[way]["connection_cpu"] * 1e6 / r[way]["connections"] for r in self.rounds if r[way]["connections"]]
        return statistics.median(values) if values else None

    def cpu_ms_per_gib(self, way):
        values = [r[way]["bytes_cpu"] * 1e3 * 2**30 / r[way]["bytes"] for r in self.rounds if r[way]["bytes"]]
        return statistics.median(values) if values else None

    def as_dict(self):
        return {"rounds": self.rounds, "problem": self.problem,
                "cpu_us_per_connection": {way: self.cpu_us_per_connection(way) for way in (REDIRECT, CONNECT)},
                "cpu_ms_per_gib": {way: self.cpu_ms_per_gib(way) for way in (REDIRECT, CONNECT)},
                "counted": self.counted}


def _delete_namespaces():
    for namespace in (GATEWAY, ORIGIN):
        _run(["ip", "netns", "del", namespace], check=False)
        shutil.rmtree(f"/etc/netns/{namespace}", ignore_errors=True)


def _make_namespaces():
    _delete_namespaces()
    for namespace in (GATEWAY, ORIGIN):
        _run(["ip", "netns", "add", namespace])
        _run(["ip", "link", "set", "lo", "up"], namespace)
    _run(["ip", "link", "add", GATEWAY_END, "netns", GATEWAY, "type", "veth", "peer", "name", ORIGIN_END,
          "netns", ORIGIN])
    for namespace, end, address in ((GATEWAY, GATEWAY_END, GATEWAY_LINK), (ORIGIN, ORIGIN_END, ORIGIN_LINK)):
        _run(["ip", "addr", "add", f"{address}/30", "dev", end], namespace)
        _run(["ip", "link", "set", end, "up"], namespace)
    _run(["ip", "addr", "add", f"{ORIGIN_ADDRESS}/32", "dev", "lo"], ORIGIN)
    _run(["ip", "route", "add", "default", "via", GATEWAY_LINK], ORIGIN)
    _run(["ip", "route", "add", f"{ORIGIN_ADDRESS}/32", "via", ORIGIN_LINK], GATEWAY)
    os.makedirs(f"/etc/netns/{GATEWAY}", exist_ok=True)
    with open(f"/etc/netns/{GATEWAY}/hosts", "w") as hosts:
        hosts.write(f"127.0.0.1 localhost\n{ORIGIN_ADDRESS} {BENCH_HOST}\n")


def _origin(environment):
    directory = os.path.join(environment.run_dir, "transparent-origin")
    os.makedirs(os.path.join(directory, "tmp"), exist_ok=True)
    config = os.path.join(directory, "nginx.conf")
    temp = os.path.join(directory, "tmp")
    with open(config, "w") as output:
        output.write(f"""
user root;
worker_processes 1;
daemon off;
pid {directory}/nginx.pid;
error_log {directory}/error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    sendfile on;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    server {{
        listen {ORIGIN_ADDRESS}:443 ssl;
        server_name {BENCH_HOST};
        ssl_certificate {environment.certificates.server_certificate};
        ssl_certificate_key {environment.certificates.server_key};
        ssl_session_tickets off;
        ssl_session_cache off;
        root {os.path.join(environment.run_dir, "www")};
    }}
}}
""")
    return Daemon("nginx-transparent-origin", ["nginx", "-p", directory, "-c", config], 443,
                  environment.log("nginx-transparent-origin.out"), host=ORIGIN_ADDRESS, namespace=ORIGIN)


def _ipdirect(environment, ipdirect_path, workers=2, wrapper=(), variant="transparent"):
    config = environment.write(f"ipdirect-{variant}.toml", f"""
[proxy]
listen = "127.0.0.1:{PROXY_PORT}"
workers = {workers}
access_log = "off"
[resolver]
order = ["hosts"]
[hosts]
"{BENCH_HOST}" = "{ORIGIN_ADDRESS}"
[access]
connect_ports = [443]
[admin]
listen = []
[transparent]
listen = "0.0.0.0:{TRANSPARENT_PORT}"
ports = [443]
exempt_user = "root"
""")
    daemon = Daemon(f"ipdirect-{variant}", [*wrapper, ipdirect_path, "run", "--config", config], PROXY_PORT,
                    environment.log(f"ipdirect-{variant}.out"), namespace=GATEWAY)
    if wrapper:
        daemon.start_timeout = WRAPPED_START_TIMEOUT_SECONDS
    return daemon, config


def _connections(way, ca, count=COUNT):
    argv = ["python3", os.path.join(HARNESS_DIR, "tls_connections.py"), str(count), BENCH_HOST, ORIGIN_ADDRESS,
            f"/{SMALL_FILE}", ca]
    if way == CONNECT:
        argv.append(f"127.0.0.1:{PROXY_PORT}")
    result = _run(_as_nobody(argv), GATEWAY)
    return int(result.stdout.strip() or 0)


def _downloads(way, ca, count=DOWNLOADS):
    argv = ["curl", "--silent", "--show-error", "--fail", "--noproxy", "*", "--cacert", ca, "--output", "/dev/null",
            "--write-out", "%{size_download}\n"]
    if way == CONNECT:
        argv += ["--proxytunnel", "--proxy", f"http://127.0.0.1:{PROXY_PORT}"]
    url = f"https://{BENCH_HOST}/{LARGE_FILE}"
    received = 0
    for _ in range(count):
        result = _run(_as_nobody(argv + [url]), GATEWAY)
        received += int(result.stdout.strip() or 0)
    return received


def _readable_ca(environment):
    """The CA where nobody may read it."""
    directory = os.path.join(environment.run_dir, "transparent-ca")
    os.makedirs(directory, exist_ok=True)
    os.chmod(directory, 0o755)
    target = os.path.join(directory, "ca.pem")
    shutil.copy(environment.certificates.ca_certificate, target)
    os.chmod(target, 0o644)
    return target


def _callgrind_total(path):
    with open(path) as output:
        for line in output:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise TransparentError(f"{path}: no summary or totals line")


def _strace_total(path):
    """The calls of a `strace -c` summary, every row but its total."""
    calls = 0
    with open(path) as summary:
        for line in summary:
            fields = line.split()
            if len(fields) in (5, 6) and fields[3].isdigit() and fields[-1] != "total":
                calls += int(fields[3])
    if not calls:
        raise TransparentError(f"{path}: no strace summary rows")
    return calls


def _counted_run(environment, ipdirect_path, tool, way, unit, count, ca):
    """ipdirect's instructions (callgrind) or system calls (strace) from start to exit, one worker, with `count`
    connections or downloads of `way` in between."""
    name = f"{tool}-{way.lower()}-{unit.lower()}-{count}"
    output = os.path.join(environment.run_dir, f"transparent-{name}.out")
    if tool == "callgrind":
        wrapper = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={output}"]
    else:
        wrapper = ["strace", "-f", "-c", "-o", output]
    daemon, _ = _ipdirect(environment, ipdirect_path, workers=1, wrapper=wrapper, variant=f"transparent-{name}")
    moved = []
    if unit == "connection":
        send = lambda _port: moved.append(_connections(way, ca, count))  # noqa: E731
    else:
        send = lambda _port: moved.append(_downloads(way, ca, count))  # noqa: E731
    status = served(COUNTED_STOP, daemon, send, stop_child=(tool == "strace"))
    if status != 0:
        raise TransparentError(f"{name}: ipdirect exited with {status}\n{daemon.log_tail()}")
    expected = count if unit == "connection" else count * LARGE_FILE_BYTES
    if moved != [expected]:
        raise TransparentError(f"{name}: moved {moved[0] if moved else 0} of {expected}")
    return _callgrind_total(output) if tool == "callgrind" else _strace_total(output)


def _measure_counted(environment, ipdirect_path, ca, result, log):
    for tool, kind in (("callgrind", "instructions"), ("strace", "calls")):
        if shutil.which("valgrind" if tool == "callgrind" else "strace") is None:
            log(f"  transparent: {tool} is not installed: no {kind} per connection or MiB")
            continue
        for unit, counts, per in (("connection", COUNTED_CONNECTIONS, 1),
                                  ("MiB", COUNTED_DOWNLOADS, LARGE_FILE_BYTES / 2**20)):
            for way in (REDIRECT, CONNECT):
                totals = [_counted_run(environment, ipdirect_path, tool, way, unit, count, ca) for count in counts]
                figure = (totals[1] - totals[0]) / ((counts[1] - counts[0]) * per)
                result.counted.setdefault(kind, {}).setdefault(unit, {})[way] = figure
                log(f"  transparent {way}: {figure:,.2f} {kind} per {unit} under {tool} "
                    f"({counts[0]} and {counts[1]}: {totals[0]:,} and {totals[1]:,})")


def measure_transparent(environment, ipdirect_path, rounds, log, counted=True):
    result = TransparentResult()
    if ipdirect_path is None:
        result.problem = "no ipdirect binary"
        return result
    origin = ipdirect = None
    try:
        _make_namespaces()
        origin = _origin(environment)
        origin.start()
        ipdirect, config = _ipdirect(environment, ipdirect_path)
        ipdirect.start()
        rules = _run([ipdirect_path, "nft-rules", "--config", config]).stdout
        rules_path = environment.write("transparent-rules.nft", rules)
        _run(["nft", "-f", rules_path], GATEWAY)
        ca = _readable_ca(environment)
        # Warm-up: the first connections of each way set up pools, caches and pipes.
        _run(_as_nobody(["python3", os.path.join(HARNESS_DIR, "tls_connections.py"), "20", BENCH_HOST,
                         ORIGIN_ADDRESS, f"/{SMALL_FILE}", ca]), GATEWAY)
        for number in range(rounds):
            ways = (REDIRECT, CONNECT) if number % 2 == 0 else (CONNECT, REDIRECT)
            figures = {}
            for way in ways:
                before = ipdirect.cpu_seconds()
                connections = _connections(way, ca)
                middle = ipdirect.cpu_seconds()
                received = _downloads(way, ca)
                after = ipdirect.cpu_seconds()
                figures[way] = {"connections": connections, "connection_cpu": middle - before,
                                "bytes": received, "bytes_cpu": after - middle}
                log(f"  transparent round {number + 1} {way}: {connections}/{COUNT} connections, "
                    f"{(middle - before) * 1e6 / max(connections, 1):.1f} µs CPU each; "
                    f"{received / 2**20:.0f} MiB, {(after - middle) * 1e3 * 2**30 / max(received, 1):.0f} ms CPU per GiB")
                if connections < COUNT or received < DOWNLOADS * LARGE_FILE_BYTES:
                    result.problem = f"round {number + 1} {way}: {connections}/{COUNT} connections, {received} bytes"
            result.rounds.append(figures)
        # The counted runs bind the same ports, so the measured ipdirect goes first.
        ipdirect.stop()
        ipdirect = None
        if counted:
            _measure_counted(environment, ipdirect_path, ca, result, log)
    except (TransparentError, DaemonError, subprocess.TimeoutExpired, OSError) as error:
        result.problem = str(error)
        log(f"  transparent: {error}")
    finally:
        if ipdirect is not None:
            ipdirect.stop()
        if origin is not None:
            origin.stop()
        _delete_namespaces()
    return result


def table_rows(result):
    def cell(value, digits):
        return "n/a" if value is None else f"{value:,.{digits}f}"

    def ratio(redirect, connect):
        return "n/a" if redirect is None or not connect else f"{redirect / connect:.2f}"

    rows = [["figure", "better", "redirected (transparent)", "CONNECT", "redirected / CONNECT"]]
    per_connection = (result.cpu_us_per_connection(REDIRECT), result.cpu_us_per_connection(CONNECT))
    per_gib = (result.cpu_ms_per_gib(REDIRECT), result.cpu_ms_per_gib(CONNECT))
    rows.append(["CPU µs per new TLS connection (handshake and 1 KiB)", "lower", cell(per_connection[0], 1),
                 cell(per_connection[1], 1), ratio(*per_connection)])
    rows.append(["CPU ms per GiB tunnelled", "lower", cell(per_gib[0], 0), cell(per_gib[1], 0), ratio(*per_gib)])
    for kind, unit, label, digits in (
            ("instructions", "connection", "instructions per new TLS connection (callgrind, one worker)", 0),
            ("calls", "connection", "system calls per new TLS connection (strace)", 2),
            ("instructions", "MiB", "instructions per MiB tunnelled (callgrind)", 0),
            ("calls", "MiB", "system calls per MiB tunnelled (strace)", 2)):
        figures = (result.counted_figure(kind, unit, REDIRECT), result.counted_figure(kind, unit, CONNECT))
        if figures != (None, None):
            rows.append([label, "lower", cell(figures[0], digits), cell(figures[1], digits), ratio(*figures)])
    return rows

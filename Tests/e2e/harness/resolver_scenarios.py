"""Building blocks for the resolver scenarios (failover, staleness, fallbacks, persistence, `ipdirect resolve`):
providers that fail in a chosen way, requests through ipdirect that always resolve, ipdirect instances a test
stops on purpose to read their shutdown counters, a dnsmasq that lies, and the `resolve` command.
"""

import os
import re
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .dns_server import DnsServer, start_dnsmasq
from .httpdns_stubs import ALIYUN_ACCOUNT_ID, HttpdnsStub
from .ipdirect_proxy import ConfigAdditions, IpdirectProxy, ipdirect_binary, ipdirect_config_text
from .network import Network
from .ports import LOOPBACK, free_port
from .raw_http import RawConnection, RawResponse, get_request
from .resolver_config import HttpdnsProvider, httpdns_sections

# The formats of the stub's URL kinds.
STUB_FORMATS = {"json-google": "json", "json-cloudflare": "json", "aliyun": "aliyun", "tencent": "tencent"}
# How long one request through the proxy may take before the test gives up on it.
REQUEST_TIMEOUT_SECONDS = 30.0
# How long a log line caused by a test may take to show up.
LOG_WAIT_SECONDS = 10.0
LOG_POLL_SECONDS = 0.05
# How long `ipdirect resolve` may run.
RESOLVE_COMMAND_TIMEOUT_SECONDS = 60.0
# `ipdirect resolve` exit codes: nothing resolved; configuration or startup error.
RESOLVE_EXIT_UNRESOLVED = 2
RESOLVE_EXIT_CONFIG_ERROR = 1


# Providers ----------------------------------------------------------------------------------------------------
def stub_provider(stub: HttpdnsStub, name: str, kind: str = "json-google", **keys) -> HttpdnsProvider:
    """A provider on the plain stub in one of its formats (aliyun on the unsigned account)."""
    if kind == "aliyun":
        keys.setdefault("account_id", ALIYUN_ACCOUNT_ID)
    return HttpdnsProvider(name, STUB_FORMATS[kind], stub.url(kind), **keys)


def unreachable_provider(name: str, **keys) -> HttpdnsProvider:
    """A json provider on a loopback port nothing listens on: every connection is refused."""
    return HttpdnsProvider(name, "json", f"http://{LOOPBACK}:{free_port()}/resolve", **keys)


# Pooled upstream connections are reused without resolving (access log `source=pool`), and a client's
# `Connection: close` does not stop ipdirect pooling its own connection to the origin: scenarios turn pooling off
# so that every request resolves.
NO_UPSTREAM_POOL = {"upstream_max_idle_per_host": 0}


def resolver_additions(*providers: HttpdnsProvider, order=("hosts", "httpdns"), environment=None,
                       **resolver_keys) -> ConfigAdditions:
    """The providers in the order given, `[resolver] order` (no system fallback unless asked) and other keys;
    upstream pooling off."""
    return ConfigAdditions(proxy_keys=dict(NO_UPSTREAM_POOL), resolver_keys={"order": list(order), **resolver_keys},
                           sections=httpdns_sections(*providers) if providers else "",
                           environment=environment or {})


# Requests through the proxy -------------------------------------------------------------------------------------
@dataclass
class Fetched:
    response: RawResponse
    seconds: float


def fetch_name(proxy: IpdirectProxy, network: Network, name: str, path: str = "/echo") -> Fetched:
    """GET on the plain origin (which answers for every name) by `name`, on a new connection closed after the
    exchange (with NO_UPSTREAM_POOL, every such request resolves)."""
    assert name not in network.static_hosts, f"{name} is a static host: the resolver would never be asked"
    authority = network.plain_authority(name)
    started = time.monotonic()
    with RawConnection(proxy.address, timeout=REQUEST_TIMEOUT_SECONDS) as client:
        client.send(get_request(network.plain_url(path, name), authority, "Connection: close\r\n"))
        response = client.read_response()
    return Fetched(response, time.monotonic() - started)


def assert_reached_origin(fetched: Fetched, network: Network, name: str) -> None:
    assert fetched.response.status == 200, fetched.response.describe()
    assert fetched.response.text.startswith(f"host={network.plain_authority(name)} "), fetched.response.describe()


# Logs -----------------------------------------------------------------------------------------------------------
_FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S*)')


def fields_of(line: str) -> dict[str, str]:
    """The `key=value` pairs of a log line (quoted values without their quotes); the first of a key wins."""
    found: dict[str, str] = {}
    for key, value in _FIELD.findall(line):
        found.setdefault(key, value[1:-1] if value.startswith('"') else value)
    return found


def access_lines(proxy: IpdirectProxy, network: Network, name: str) -> list[dict[str, str]]:
    """The access log lines of requests to `name` on the plain origin since the proxy's mark, as written: each
    worker writes its own batches, so lines of requests on different connections may be out of request order."""
    target = network.plain_authority(name)
    parsed = (fields_of(line) for line in proxy.access_log_since_mark().splitlines())
    return [values for values in parsed if values.get("target") == target]


def wait_for_access_lines(proxy: IpdirectProxy, network: Network, name: str, count: int) -> list[dict[str, str]]:
    """At least `count` access log lines for `name`; fails with the whole log when they do not show up."""
    deadline = time.monotonic() + LOG_WAIT_SECONDS
    while True:
        lines = access_lines(proxy, network, name)
        if len(lines) >= count:
            return lines
        if time.monotonic() >= deadline:
            raise AssertionError(f"{len(lines)} access log lines for {name}, expected {count}:\n"
                                 f"{proxy.access_log_since_mark()}")
        time.sleep(LOG_POLL_SECONDS)


def events(text: str, event: str, **expected: str) -> list[dict[str, str]]:
    """The `event=EVENT` lines of an event log whose fields include `expected`."""
    found = []
    for line in text.splitlines():
        values = fields_of(line)
        if values.get("event") == event and all(values.get(key) == value for key, value in expected.items()):
            found.append(values)
    return found


def wait_for_event(proxy: IpdirectProxy, event: str, since_start: bool = False, **expected: str) -> dict[str, str]:
    """The first such event on the proxy's stderr since its mark (since the process started with
    `since_start`, for what it logs before it listens); fails with the log if none shows up."""
    def stderr() -> str:
        return proxy.process.stderr_text() if since_start else proxy.stderr_since_mark()

    deadline = time.monotonic() + LOG_WAIT_SECONDS
    while True:
        found = events(stderr(), event, **expected)
        if found:
            return found[0]
        if time.monotonic() >= deadline:
            raise AssertionError(f"no event={event} with {expected} on ipdirect's stderr:\n{stderr()[-6000:]}")
        time.sleep(LOG_POLL_SECONDS)


def wait_until(condition, what: str, timeout: float = LOG_WAIT_SECONDS) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(LOG_POLL_SECONDS)


# Shutdown counters ----------------------------------------------------------------------------------------------
_SOURCE_COUNTERS = re.compile(r"([\w.-]+)\[([^\]]*)\]")


@dataclass
class ResolverCounters:
    """The `event=resolver_counters` line ipdirect logs at shutdown."""
    entries: int
    cache: dict[str, int]
    queries: dict[str, dict[str, int]]
    system_disagreements: int
    line: str = ""

    def query(self, source: str, outcome: str) -> int:
        return self.queries.get(source, {}).get(outcome, 0)

    @classmethod
    def parse(cls, line: str) -> "ResolverCounters":
        entries = re.search(r"\bentries=(\d+)", line)
        cache = re.search(r"\bcache=\[([^\]]*)\]", line)
        queries = re.search(r"\bqueries=\[(.*)\]\s*$", line)
        assert entries and cache and queries, f"unreadable resolver_counters line: {line}"
        per_source = {source: {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", outcomes)}
                      for source, outcomes in _SOURCE_COUNTERS.findall(queries.group(1))}
        disagreements = re.search(r"\bsystem_disagreements=(\d+)", queries.group(1))
        return cls(int(entries.group(1)),
                   {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", cache.group(1))},
                   per_source, int(disagreements.group(1)) if disagreements else 0, line)


def counters_from(stderr_text: str) -> ResolverCounters:
    lines = [line for line in stderr_text.splitlines() if "event=resolver_counters" in line]
    assert len(lines) == 1, f"expected one resolver_counters line at shutdown, found {len(lines)}:\n" \
                            f"{stderr_text[-6000:]}"
    return ResolverCounters.parse(lines[0])


# How long ipdirect may take to exit after SIGTERM or SIGINT (it writes its cache file first).
STOP_WAIT_SECONDS = 10.0


class ScenarioIpdirects:
    """ipdirect instances of one test (started through conftest's `start_ipdirect`) that the test may stop on
    purpose, by SIGTERM or SIGINT, to read what they log and write at shutdown."""

    def __init__(self, start_ipdirect):
        self._own = start_ipdirect
        self._stopped_on_purpose: list[IpdirectProxy] = []

    def start(self, additions: ConfigAdditions) -> IpdirectProxy:
        return self._own(additions)

    def stop(self, proxy: IpdirectProxy, signum: int = signal.SIGTERM) -> str:
        """Signals ipdirect (SIGKILL if it outlives the grace period) and returns its whole stderr. The exit
        must be clean: a daemon killed or crashing at shutdown never writes its counters or cache."""
        self._stopped_on_purpose.append(proxy)
        process = proxy.process
        os.kill(process.pid, signum)
        try:
            process.popen.wait(timeout=STOP_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            process.stop()
            raise AssertionError(f"ipdirect did not exit within {STOP_WAIT_SECONDS}s of "
                                 f"{signal.Signals(signum).name}:\n{proxy.describe()}")
        assert process.exit_code() == 0, f"ipdirect exited with {process.exit_code()} on " \
                                         f"{signal.Signals(signum).name}:\n{process.describe_output()}"
        return process.stderr_text()

    def stop_for_counters(self, proxy: IpdirectProxy) -> ResolverCounters:
        return counters_from(self.stop(proxy))

    def forget_stopped(self) -> None:
        """Teardown: instances stopped on purpose did not die during the test."""
        for proxy in self._stopped_on_purpose:
            if proxy in self._own.started:
                self._own.started.remove(proxy)


@pytest.fixture
def ipdirects(start_ipdirect) -> ScenarioIpdirects:
    """`ipdirects.start(additions)`, `ipdirects.stop(proxy)`: like `start_ipdirect`, with deliberate stops."""
    scenario = ScenarioIpdirects(start_ipdirect)
    yield scenario
    scenario.forget_stopped()


# A dnsmasq that lies ---------------------------------------------------------------------------------------------
def start_lying_dns_server(directory: Path, lies: dict[str, str], denied_domain: str = "test") -> DnsServer:
    """A dnsmasq of one test's own, answering each name of `lies` (and its subdomains) with the address given,
    every other name under `denied_domain` NXDOMAIN, and refusing the rest; the shared dnsmasq fixture is never
    touched. Stop it to restore the truth."""
    return start_dnsmasq("lying-dnsmasq", directory, [
        f"--local=/{denied_domain}/", *(f"--address=/{name}/{address}" for name, address in lies.items())])


def dns_replies(server: DnsServer, name: str, answer: str) -> int:
    """How often the dnsmasq (run with --log-queries) answered `name` with `answer` (an address, or NXDOMAIN).
    Queries may come with randomised letter case (the 0x20 trick), so names compare case-insensitively."""
    reply = re.compile(rf"\bconfig {re.escape(name)} is {re.escape(answer)}$", re.IGNORECASE)
    return sum(1 for line in server.process.stderr_text().splitlines() if reply.search(line))


def nothing_listens(address: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(2.0)
        return probe.connect_ex((address, port)) != 0


# `ipdirect resolve` -----------------------------------------------------------------------------------------------
@dataclass
class ResolvedLine:
    address: str
    ttl: str
    source: str


@dataclass
class ResolveRun:
    exit_code: int
    stdout: str
    stderr: str
    lines: list[ResolvedLine] = field(default_factory=list)

    def describe(self) -> str:
        return f"exit {self.exit_code}\n--- stdout:\n{self.stdout}\n--- stderr:\n{self.stderr}"


def write_config(path: Path, network: Network, ca_file: Path, additions: ConfigAdditions) -> Path:
    """A configuration file as the daemon instances get it (the listener is never opened by `resolve`)."""
    path.write_text(ipdirect_config_text([f"{LOOPBACK}:{free_port()}"], network, ca_file, additions=additions))
    return path


def run_resolve(name: str, config: Path, *extra: str, environment: dict[str, str] | None = None) -> ResolveRun:
    """`ipdirect resolve NAME --config FILE`; address lines are `ADDRESS<TAB>ttl=N|-<TAB>source=S`."""
    completed = subprocess.run([str(ipdirect_binary()), "resolve", name, "--config", str(config), *extra],
                               capture_output=True, text=True, timeout=RESOLVE_COMMAND_TIMEOUT_SECONDS,
                               stdin=subprocess.DEVNULL, env={**os.environ, **(environment or {})})
    run = ResolveRun(completed.returncode, completed.stdout, completed.stderr)
    for line in completed.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[1].startswith("ttl=") and parts[2].startswith("source="):
            run.lines.append(ResolvedLine(parts[0], parts[1][len("ttl="):], parts[2][len("source="):]))
    return run

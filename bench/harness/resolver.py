"""The resolver figures: what resolving a host name costs a request, through each proxy's own resolver.

Columns, each a fresh proxy process with an empty cache:
  ipdirect (DoH)      `[resolver] order = ["httpdns"]`, one `doh` provider: unbound on loopback (RFC 8484).
  ipdirect (system)   `order = ["system"]`, asking dnsmasq on loopback.
  tinyproxy (system)  glibc's resolver (no cache), asking the same dnsmasq.
  squid (system)      squid's own DNS client and ipcache, asking the same dnsmasq.
Both DNS servers know the same names, `cold0.bench.test` ... `coldN-1.bench.test`, all 127.0.0.1 (the origin),
with a TTL far longer than the run. No proxy keeps idle upstream connections here (a pooled connection would
skip resolution), so every request opens a new upstream connection and resolves its host.

For each column: one untimed request for another name (first connections, code paths), then the cold round
(one request per name, each name new to the proxy) and the warm round (the same names again, now cached),
timed by `request_timing`; the DNS server's query count before and after each round shows which requests
really asked it. For ipdirect (DoH) also `lookup_rate`: cache-hit lookups per second inside the daemon.
"""

from harness.daemon import DaemonError
from harness.dnsmasq import OWN_LOOPBACK_ADDRESS, Dnsmasq, DnsmasqError
from harness.lookup_rate import LookupRateError, measure_lookup_rate
from harness.request_timing import time_requests
from harness.targets import BENCH_HOST, SMALL_FILE, free_port
from harness.unbound_doh import UnboundDoh, UnboundError

IPDIRECT_DOH = "ipdirect (DoH)"
IPDIRECT_SYSTEM = "ipdirect (system)"
TINYPROXY_SYSTEM = "tinyproxy (system)"
SQUID_SYSTEM = "squid (system)"
# (column, the target of the main table it belongs to), in the order printed.
COLUMNS = ((IPDIRECT_DOH, "ipdirect"), (IPDIRECT_SYSTEM, "ipdirect"),
           (TINYPROXY_SYSTEM, "tinyproxy"), (SQUID_SYSTEM, "squid"))
DOH_COLUMNS = (IPDIRECT_DOH,)
PORT_53_ONLY_COLUMNS = (TINYPROXY_SYSTEM, SQUID_SYSTEM)
# The provider name in config/ipdirect-doh.toml.in: the source the first lookup's answer must come from.
DOH_PROVIDER = "bench-doh"
WARM_UP_NAME = f"warm-up.{BENCH_HOST}"
LOOKUP_NAME = f"lookups.{BENCH_HOST}"
COLD = "cold"
WARM = "warm"
# What ipdirect logs at shutdown: its cache and query counters, quoted under the table as evidence.
IPDIRECT_COUNTERS_EVENT = "event=resolver_counters"


def cold_names(count):
    return [f"cold{index}.{BENCH_HOST}" for index in range(count)]


class ResolverResult:
    """One column; a figure that could not be taken is None and explained in `problems`."""

    def __init__(self, name, target):
        self.name = name
        self.target = target
        self.skipped = None
        self.rounds = {}          # COLD / WARM -> RequestTimes
        self.dns_queries = {}     # COLD / WARM -> queries the DNS server received during that round
        self.lookup_rate = None   # LookupRate, ipdirect (DoH) only
        self.problems = []
        self.notes = []

    def __str__(self):
        return f"{self.name}: {'skipped: ' + self.skipped if self.skipped else 'measured'}"

    def latency_ms(self, round_name, percent):
        times = self.rounds.get(round_name)
        return times.percentile(percent) if times else None


def measure_resolver(names_count, wanted_targets, skipped_targets, environment, ipdirect_path, log):
    """`skipped_targets`: target -> why it cannot run at all (no ipdirect binary, not root)."""
    results = [ResolverResult(name, target) for name, target in COLUMNS if target in wanted_targets]
    for result in results:
        result.skipped = skipped_targets.get(result.target)
    active = lambda names: [result for result in results if not result.skipped and result.name in names]
    names = cold_names(names_count)
    servers = {}
    try:
        if active(DOH_COLUMNS):
            servers[IPDIRECT_DOH] = _start(UnboundDoh(environment, names + [WARM_UP_NAME, LOOKUP_NAME]),
                                           active(DOH_COLUMNS), log)
        system_columns = [result.name for result in results if result.name not in DOH_COLUMNS]
        if active(system_columns):
            dnsmasq = _start(Dnsmasq(environment, names + [WARM_UP_NAME]), active(system_columns), log)
            if dnsmasq and not dnsmasq.on_port_53:
                for result in active(PORT_53_ONLY_COLUMNS):
                    result.skipped = (f"asks DNS servers on port 53 only (squid's dns_nameservers and glibc's "
                                      f"resolv.conf take no port), and port 53 of {OWN_LOOPBACK_ADDRESS} could "
                                      f"not be bound for dnsmasq")
            for name in system_columns:
                servers[name] = dnsmasq
        for result in results:
            if result.skipped:
                continue
            log(f"{result.name} (resolver):")
            _measure_column(result, servers[result.name], environment, ipdirect_path, names, log)
    finally:
        for server in {id(server): server for server in servers.values() if server}.values():
            server.stop()
    return results


def _start(server, columns, log):
    try:
        server.start()
    except DaemonError as error:
        for result in columns:
            result.skipped = f"{server.daemon.name} did not start: {str(error).splitlines()[0]}"
        log(f"  {error}")
        return None
    log(f"{server} started")
    return server


def _daemon(result, server, environment, ipdirect_path):
    if result.name == IPDIRECT_DOH:
        return environment.ipdirect(ipdirect_path, "doh", upstream_max_idle_per_host=0,
                                    template="ipdirect-doh.toml.in", DOH_PORT=server.port)
    if result.name == IPDIRECT_SYSTEM:
        return environment.ipdirect(ipdirect_path, "system", upstream_max_idle_per_host=0,
                                    template="ipdirect-system.toml.in", DNS_ADDRESS=server.address)
    if result.name == TINYPROXY_SYSTEM:
        return environment.tinyproxy("resolver", nameserver=server.host)
    return environment.squid("resolver", persistent_upstream_connections=False, nameserver=server.host)


def _measure_column(result, server, environment, ipdirect_path, names, log):
    daemon = _daemon(result, server, environment, ipdirect_path)
    url = lambda name: f"http://{name}:{environment.http_port}/{SMALL_FILE}"
    try:
        daemon.start()
        warm_up = time_requests(daemon.port, [url(WARM_UP_NAME)])
        if warm_up.failures:
            result.problems.append(f"the untimed first request failed, so nothing was timed: {warm_up.failures[0]}")
            return
        counts = [server.query_count()]
        for round_name in (COLD, WARM):
            times = time_requests(daemon.port, [url(name) for name in names])
            counts.append(server.query_count())
            result.rounds[round_name] = times
            result.dns_queries[round_name] = counts[-1] - counts[-2]
            log(f"  {round_name} {times}; the DNS server received {result.dns_queries[round_name]} queries")
            if times.failures:
                result.problems.append(f"{round_name} round: {times.failure_summary()}")
    except (DaemonError, UnboundError, DnsmasqError) as error:
        result.problems.append(str(error).splitlines()[0])
        log(f"  {error}")
    finally:
        daemon.stop()
    if result.target == "ipdirect":
        result.notes += _ipdirect_counters(daemon.log_path)
    if result.name == IPDIRECT_DOH:
        _measure_lookup_rate(result, server, environment, ipdirect_path, log)


def _measure_lookup_rate(result, unbound, environment, ipdirect_path, log):
    """Runs after the proxy has stopped, so the two do not compete for the cores."""
    config = environment.ipdirect_config("ipdirect-lookups", "ipdirect-doh.toml.in", IPDIRECT_PORT=free_port(),
                                         DOH_PORT=unbound.port)
    try:
        result.lookup_rate = measure_lookup_rate(ipdirect_path, config, LOOKUP_NAME, DOH_PROVIDER,
                                                 environment.log("ipdirect-resolve-repeat.txt"))
        log(f"  cache-hit lookups {result.lookup_rate}")
    except LookupRateError as error:
        result.problems.append(f"cache-hit lookups: {error}")
        log(f"  {error}")


def _ipdirect_counters(log_path):
    """The resolver counters ipdirect logged at shutdown, as `ipdirect: <fields>`."""
    try:
        with open(log_path, errors="replace") as log:
            lines = [line.strip() for line in log if IPDIRECT_COUNTERS_EVENT in line]
    except OSError:
        return []
    if not lines:
        return []
    return ["counters at shutdown: " + lines[-1].split(IPDIRECT_COUNTERS_EVENT, 1)[1].strip()]

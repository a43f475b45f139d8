"""The DNS listener table: ipdirect's `[dns] listen` next to unbound and dnsmasq, all three answering the same
names from a cache each filled from the same upstream unbound (harness/dns_servers.py), measured with dnsperf
in interleaved rounds. See bench/README.md, "DNS listener"."""

import os
import random
import statistics
import time

from harness import dnsperf
from harness.daemon import DaemonError
from harness.dns_servers import SERVER_NAMES, THREADS, Upstream, addresses, cache_server, name, program
from harness.repetitions import rotated

# Names whose RSS is the base of the memory figure: the cost of the first answers (buffers, hash tables'
# first pages) stays out of the per-name figure.
FEW_NAMES = 100
# One pass through the names to fill a cache: a few clients, this many queries in flight.
WARM_CLIENTS = 4
WARM_OUTSTANDING = 100
# Passes through every name after the warming one, until one reaches the upstream no more.
MAX_CHECK_PASSES = 3
# dnsmasq's default cache-size: a dnsmasq started with it is the base of dnsmasq's memory figure, since dnsmasq
# allocates its whole cache when it starts.
DNSMASQ_DEFAULT_CACHE_ENTRIES = 150
# Time for a server to settle (freed buffers, threads idle) before its RSS is read.
SETTLE_SECONDS = 1
# The throughput run: dnsperf with two threads (the servers' thread count) and enough clients (source ports)
# for the kernel to spread them over both sockets of a server with two (SO_REUSEPORT hashes by source).
LOAD_THREADS = 2
LOAD_CLIENTS = 16
LOAD_OUTSTANDING = 100
# The latency run: a fixed rate every server sustains, one query per line with -v.
LATENCY_RATE = 10_000
LATENCY_THREADS = 1
LATENCY_CLIENTS = 4
# Names are shuffled with a fixed seed, so every run sends the same mix.
MIX_SEED = 53


class DNSServerResult:
    """One measured server: its memory figures, and per round its throughput and latency runs."""

    def __init__(self, name):
        self.name = name
        self.threads = THREADS[name]
        self.skipped = None
        # "start" (nothing cached), "few", "all", and for dnsmasq "default_cache" (started with its default
        # cache size) -> KiB
        self.rss_kib = {}
        self.warm = {}  # what filling the cache took
        self.rounds = []  # {"load": dnsperf figures, "cpu_seconds": s, "latency": figures, "upstream": n}
        self.problems = []

    def _median(self, extract):
        values = [value for value in (extract(run) for run in self.rounds) if value is not None]
        return statistics.median(values) if values else None

    def queries_per_second(self):
        return self._median(lambda run: run["load"]["queries_per_second"])

    def queries_per_second_range(self):
        values = [run["load"]["queries_per_second"] for run in self.rounds]
        return (min(values), max(values)) if values else None

    def average_latency_ms(self):
        return self._median(lambda run: run["load"]["average_latency_seconds"] * 1000)

    def latency_ms(self, fraction):
        return self._median(lambda run: _scaled(dnsperf.percentile(run["latency"]["latencies"], fraction), 1000))

    def cpu_us_per_query(self):
        return self._median(lambda run: run["cpu_seconds"] * 1e6 / run["load"]["completed"]
                            if run["load"]["completed"] else None)

    def lost(self):
        return sum(run["load"]["lost"] + run["latency"]["lost"] for run in self.rounds)

    def not_noerror(self):
        return sum(run["load"]["completed"] - run["load"]["noerror"] for run in self.rounds)

    def upstream_queries(self):
        return sum(run["upstream"] for run in self.rounds)

    def rss_bytes_per_name(self, names):
        """What one more cached name costs, read after the load rounds (when every name has been asked for
        both families many times: what a server keeps per answer besides its cache, such as ipdirect's answer
        templates, is in it) or, without rounds, after the fill; for dnsmasq, whose cache is allocated whole
        at start, what holding `names` costs over a dnsmasq with its default cache."""
        held = self.rss_kib.get("after_rounds", self.rss_kib.get("all"))
        if held is None:
            return None
        if "default_cache" in self.rss_kib:
            return (held - self.rss_kib["default_cache"]) * 1024 / names
        if "few" not in self.rss_kib:
            return None
        return (held - self.rss_kib["few"]) * 1024 / (names - FEW_NAMES)

    def as_dict(self, names):
        return {"skipped": self.skipped, "threads": self.threads, "rss_kib": self.rss_kib, "warm": self.warm,
                "rss_bytes_per_name": self.rss_bytes_per_name(names),
                "queries_per_second": self.queries_per_second(), "cpu_us_per_query": self.cpu_us_per_query(),
                "latency_ms": {"p50": self.latency_ms(0.5), "p99": self.latency_ms(0.99)},
                "rounds": [{"load": run["load"], "cpu_seconds": run["cpu_seconds"], "upstream": run["upstream"],
                            "latency": {key: value for key, value in run["latency"].items() if key != "latencies"},
                            "latency_p50_ms": _scaled(dnsperf.percentile(run["latency"]["latencies"], 0.5), 1000),
                            "latency_p99_ms": _scaled(dnsperf.percentile(run["latency"]["latencies"], 0.99), 1000)}
                           for run in self.rounds],
                "problems": self.problems}


def _scaled(value, factor):
    return None if value is None else value * factor


def write_query_files(directory, count):
    """dnsperf input files ("name type" per line): the first FEW_NAMES names, every name in order (A then
    AAAA, to fill a cache), and every name's A and AAAA in a fixed shuffled order (the timed mix)."""
    os.makedirs(directory, exist_ok=True)
    paths = {kind: os.path.join(directory, f"{kind}.queries") for kind in ("few", "all", "mix")}
    with open(paths["few"], "w") as few:
        few.writelines(f"{name(index)} {kind}\n" for index in range(FEW_NAMES) for kind in ("A", "AAAA"))
    with open(paths["all"], "w") as every:
        every.writelines(f"{name(index)} {kind}\n" for index in range(count) for kind in ("A", "AAAA"))
    lines = [f"{name(index)} {kind}\n" for index in range(count) for kind in ("A", "AAAA")]
    random.Random(MIX_SEED).shuffle(lines)
    with open(paths["mix"], "w") as mix:
        mix.writelines(lines)
    return paths


def fill_cache(server, upstream, path, log_path):
    """One pass through `path`, then passes until one sends the upstream nothing (every answer came from the
    cache), at most MAX_CHECK_PASSES. Returns what it took; raises DaemonError when the cache never holds
    every name."""
    started = time.monotonic()
    before = upstream.query_count()
    first = dnsperf.run(server.port, path, passes=1, clients=WARM_CLIENTS, outstanding=WARM_OUTSTANDING,
                        log_path=log_path)
    filled = upstream.query_count()
    warm = {"seconds": None, "upstream_queries": filled - before, "lost": first["lost"], "check_passes": []}
    for _ in range(MAX_CHECK_PASSES):
        check_before = upstream.query_count()
        check = dnsperf.run(server.port, path, passes=1, clients=WARM_CLIENTS, outstanding=WARM_OUTSTANDING,
                            log_path=log_path)
        asked = upstream.query_count() - check_before
        warm["check_passes"].append({"upstream_queries": asked, "lost": check["lost"],
                                     "noerror": check["noerror"], "sent": check["sent"]})
        if asked == 0 and check["lost"] == 0 and check["noerror"] == check["sent"]:
            warm["seconds"] = round(time.monotonic() - started, 1)
            return warm
    raise DaemonError(f"{server.name}: still asked its upstream for {asked} queries (lost {check['lost']}) after "
                      f"{MAX_CHECK_PASSES} passes through every name")


def measure_dns(names, rounds, seconds, latency_seconds, environment, ipdirect_path, ipdirect_problem, log):
    """Every server started, filled and measured for memory, then `rounds` rounds in a rotating order of a
    throughput run and a fixed-rate latency run per server. Returns one DNSServerResult per server."""
    results = {server_name: DNSServerResult(server_name) for server_name in SERVER_NAMES}
    paths = write_query_files(os.path.join(environment.run_dir, "dns", "queries"), names)
    dnsperf_log = environment.log("dns-dnsperf.txt")
    upstream = Upstream(environment, names)
    servers = []
    try:
        log(f"DNS listener table: {names} names; starting the upstream unbound")
        upstream.start()
        log(f"  {upstream}")
        for server_name in SERVER_NAMES:
            result = results[server_name]
            if server_name == "ipdirect" and not ipdirect_path:
                result.skipped = ipdirect_problem
                continue
            if server_name == "dnsmasq":
                default_cache = cache_server(server_name, environment, upstream, names,
                                             cache_entries=DNSMASQ_DEFAULT_CACHE_ENTRIES)
                try:
                    default_cache.start()
                    time.sleep(SETTLE_SECONDS)
                    result.rss_kib["default_cache"] = default_cache.rss_kib()
                except DaemonError as error:
                    result.problems.append(f"a dnsmasq with its default cache did not start: {error}")
                finally:
                    default_cache.stop()
            server = cache_server(server_name, environment, upstream, names, ipdirect_path)
            try:
                server.start()
                time.sleep(SETTLE_SECONDS)
                result.rss_kib["start"] = server.rss_kib()
                fill_cache(server, upstream, paths["few"], dnsperf_log)
                time.sleep(SETTLE_SECONDS)
                result.rss_kib["few"] = server.rss_kib()
                result.warm = fill_cache(server, upstream, paths["all"], dnsperf_log)
                time.sleep(SETTLE_SECONDS)
                result.rss_kib["all"] = server.rss_kib()
            except (DaemonError, dnsperf.DnsperfError) as error:
                server.stop()
                result.skipped = f"did not fill its cache: {str(error).splitlines()[0]}"
                log(f"  {server_name}: {error}")
                continue
            servers.append(server)
            log(f"  {server_name} on port {server.port}: filled in {result.warm['seconds']} s, RSS "
                f"{result.rss_kib['few'] / 1024:.1f} MiB with {FEW_NAMES} names, "
                f"{result.rss_kib['all'] / 1024:.1f} MiB with {names}")
        for round_index in range(rounds):
            order = rotated(servers, round_index)
            log(f"  round {round_index + 1} of {rounds}: {', '.join(server.name for server in order)}")
            for server in order:
                result = results[server.name]
                try:
                    upstream_before = upstream.query_count()
                    cpu_before = server.cpu_seconds()
                    load = dnsperf.run(server.port, paths["mix"], seconds=seconds, threads=LOAD_THREADS,
                                       clients=LOAD_CLIENTS, outstanding=LOAD_OUTSTANDING, log_path=dnsperf_log)
                    cpu_seconds = server.cpu_seconds() - cpu_before
                    latency = dnsperf.run(server.port, paths["mix"], seconds=latency_seconds,
                                          threads=LATENCY_THREADS, clients=LATENCY_CLIENTS, rate=LATENCY_RATE,
                                          verbose=True, log_path=dnsperf_log)
                    upstream_queries = upstream.query_count() - upstream_before
                except dnsperf.DnsperfError as error:
                    result.problems.append(f"round {round_index + 1}: {error}")
                    log(f"    {server.name}: {error}")
                    continue
                result.rounds.append({"load": load, "cpu_seconds": cpu_seconds, "latency": latency,
                                      "upstream": upstream_queries})
                p50 = dnsperf.percentile(latency["latencies"], 0.5)
                p99 = dnsperf.percentile(latency["latencies"], 0.99)
                log(f"    {server.name}: {load['queries_per_second']:.0f} queries/s, "
                    f"{cpu_seconds * 1e6 / max(load['completed'], 1):.1f} µs CPU per query, lost {load['lost']}; "
                    f"at {LATENCY_RATE}/s p50 {p50 * 1000 if p50 else float('nan'):.3f} ms "
                    f"p99 {p99 * 1000 if p99 else float('nan'):.3f} ms; upstream asked {upstream_queries}")
        for server in servers:
            if not server.is_running():
                results[server.name].problems.append("exited during the run")
            elif rounds:
                results[server.name].rss_kib["after_rounds"] = server.rss_kib()
    finally:
        for server in servers:
            server.stop()
        upstream.stop()
    for result in results.values():
        if result.lost():
            result.problems.append(f"{result.lost()} queries lost (unanswered within "
                                   f"{dnsperf.QUERY_TIMEOUT_SECONDS} s) over the timed runs")
        if result.not_noerror():
            result.problems.append(f"{result.not_noerror()} answers in the throughput runs were not NOERROR")
        if result.upstream_queries():
            result.problems.append(f"the upstream was asked {result.upstream_queries()} queries during the timed "
                                   "runs: not every answer came from the cache")
    return [results[server_name] for server_name in SERVER_NAMES]


def table_rows(results, names, seconds, latency_seconds):
    header = ["figure", "better"] + [f"{program(result.name)} ({result.threads} thread{'s' if result.threads > 1 else ''})"
                                     for result in results]

    def row(label, better, extract, digits, missing="n/a"):
        cells = []
        for result in results:
            if result.skipped:
                cells.append("skipped")
                continue
            value = extract(result)
            cells.append(missing if value is None else f"{value:,.{digits}f}")
        return [label, better] + cells

    def qps_cell(result):
        if result.skipped:
            return "skipped"
        value, spread = result.queries_per_second(), result.queries_per_second_range()
        if value is None:
            return "n/a"
        return f"{value:,.0f} ({spread[0]:,.0f}–{spread[1]:,.0f})"

    return [header,
            ["cached queries/s (min–max over rounds)", "higher"] + [qps_cell(result) for result in results],
            row("average latency ms at that load", "lower", lambda result: result.average_latency_ms(), 3),
            row(f"latency p50 ms at {LATENCY_RATE:,} queries/s", "lower", lambda result: result.latency_ms(0.5), 3),
            row(f"latency p99 ms at {LATENCY_RATE:,} queries/s", "lower", lambda result: result.latency_ms(0.99), 3),
            row("CPU µs per query", "lower", lambda result: result.cpu_us_per_query(), 2),
            row("RSS MiB at start, nothing cached", "lower",
                lambda result: result.rss_kib.get("start", 0) / 1024 if result.rss_kib else None, 1),
            row(f"RSS MiB with {FEW_NAMES} names cached", "lower",
                lambda result: result.rss_kib.get("few", 0) / 1024 if result.rss_kib else None, 1),
            row(f"RSS MiB with {names:,} names cached", "lower",
                lambda result: result.rss_kib.get("all", 0) / 1024 if result.rss_kib else None, 1),
            row(f"RSS MiB with {names:,} names cached, after the load rounds", "lower",
                lambda result: result.rss_kib["after_rounds"] / 1024 if "after_rounds" in result.rss_kib else None, 1),
            row("RSS bytes per cached name (A + AAAA), after the load rounds", "lower",
                lambda result: result.rss_bytes_per_name(names), 0),
            row(f"RSS MiB of a dnsmasq with its default {DNSMASQ_DEFAULT_CACHE_ENTRIES}-entry cache", "-",
                lambda result: result.rss_kib["default_cache"] / 1024 if "default_cache" in result.rss_kib else None,
                1, missing="-"),
            row("seconds to fill the cache from the upstream", "lower",
                lambda result: result.warm.get("seconds") if result.warm else None, 1)]


def notes_text(results, bullet="- "):
    lines = []
    for result in results:
        if result.skipped:
            lines.append(f"{bullet}{result.name}: {result.skipped}")
        lines += [f"{bullet}{result.name}: {problem}" for problem in result.problems]
    return "\n".join(lines)


def shape_text(names, rounds, seconds, latency_seconds):
    return (f"{names:,} names, each with an A and an AAAA record, cached by every server from the same upstream "
            f"unbound; {rounds} interleaved rounds. Throughput: dnsperf -T {LOAD_THREADS} -c {LOAD_CLIENTS} "
            f"-q {LOAD_OUTSTANDING} for {seconds} s over every name's A and AAAA in a fixed shuffled order. "
            f"Latency: dnsperf -Q {LATENCY_RATE} -c {LATENCY_CLIENTS} -v for {latency_seconds} s, nearest-rank "
            "percentiles of every answered query. Cells are medians over the rounds. ipdirect and unbound run "
            "twice, with two threads and with one (dnsmasq has one); ipdirect keeps no query log for /queries "
            "(query_log = 0), as the others log nothing.")

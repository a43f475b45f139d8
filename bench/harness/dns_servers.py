"""The DNS servers of the DNS listener table (bench/dns): one upstream unbound that holds the benchmark's names,
and the three caches measured in front of it, each filled from it: ipdirect's DNS listener (over DoH), unbound
and dnsmasq (over plain DNS). Everything binds to 127.0.0.1 on free ports."""

import os

from harness.daemon import Daemon
from harness.targets import free_port
from harness.unbound_doh import unbound_query_count

NAME_SUFFIX = "dnsbench.test"
# Longer than any run, so no cached answer expires while it is measured.
RECORD_TTL_SECONDS = 86400
# unbound reads 200,000 local-data lines before it listens.
UPSTREAM_START_TIMEOUT_SECONDS = 60
# Cache entries per name: its A and its AAAA answer (ipdirect keeps one per address family, dnsmasq one per
# record); the caches get room for this many per name and a quarter more.
ENTRIES_PER_NAME = 2
CACHE_HEADROOM = 1.25
# The measured servers: each answers with two threads where it can (dnsmasq has one), and ipdirect and unbound
# once more with one thread, to set against dnsmasq at equal threads.
SERVER_NAMES = ("ipdirect", "unbound", "ipdirect-1", "unbound-1", "dnsmasq")
THREADS = {"ipdirect": 2, "unbound": 2, "dnsmasq": 1, "ipdirect-1": 1, "unbound-1": 1}
# The servers bench/dns-callgrind measures: instructions per query do not depend on the thread count.
BASE_SERVER_NAMES = ("ipdirect", "unbound", "dnsmasq")


def program(server_name):
    """The program a measured server runs: `ipdirect-1` is ipdirect with one thread."""
    return server_name.split("-")[0]


def name(index):
    return f"n{index}.{NAME_SUFFIX}"


def addresses(index):
    """A distinct IPv4 loopback address and IPv6 ULA address for name `index` (up to 2^24 names)."""
    return (f"127.{1 + (index >> 16)}.{(index >> 8) & 255}.{index & 255}",
            f"fd00::{index >> 16:x}:{index & 0xFFFF:x}")


class UpstreamError(Exception):
    """unbound-control failed or printed no query count."""


class Upstream:
    """The unbound every cache is filled from: plain DNS on `port`, DoH on `doh_port`."""

    def __init__(self, environment, count):
        self.port = free_port()
        self.doh_port = free_port()
        self.control_port = free_port()
        directory = os.path.join(environment.run_dir, "dns", "upstream")
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "local-data.names"), "w") as records:
            records.write("server:\n")
            for index in range(count):
                v4, v6 = addresses(index)
                records.write(f'  local-data: "{name(index)}. {RECORD_TTL_SECONDS} IN A {v4}"\n'
                              f'  local-data: "{name(index)}. {RECORD_TTL_SECONDS} IN AAAA {v6}"\n')
        self.config = environment.render("unbound-dns-upstream.conf.in", "dns/upstream/unbound.conf",
                                         UPSTREAM_PORT=self.port, UPSTREAM_DOH_PORT=self.doh_port,
                                         CONTROL_PORT=self.control_port)
        self.daemon = Daemon("upstream unbound", ["unbound", "-d", "-c", self.config], self.port,
                             environment.log("dns-upstream.out"), start_timeout=UPSTREAM_START_TIMEOUT_SECONDS)

    def __str__(self):
        return f"upstream unbound dns=127.0.0.1:{self.port} doh=127.0.0.1:{self.doh_port}"

    def start(self):
        self.daemon.start()

    def stop(self):
        self.daemon.stop()

    def query_count(self):
        return unbound_query_count(self.config, UpstreamError)


def cache_server(server_name, environment, upstream, count, ipdirect_path=None, wrapper=(), cache_entries=None,
                 query_log=0):
    """An unstarted Daemon for one measured server; its `port` is the DNS port (UDP and TCP on 127.0.0.1).
    `wrapper` is a command that runs it, such as valgrind and its options; `cache_entries` replaces the cache size
    made for `count` names (ipdirect and dnsmasq)."""
    port = free_port()
    entries = cache_entries or int(count * ENTRIES_PER_NAME * CACHE_HEADROOM)
    directory = os.path.join(environment.run_dir, "dns", server_name)
    os.makedirs(directory, exist_ok=True)
    threads = THREADS[server_name]
    if program(server_name) == "ipdirect":
        config = environment.render("ipdirect-dns.toml.in", f"dns/{server_name}/ipdirect.toml", IPDIRECT_PORT=free_port(),
                                    DNS_PORT=port, UPSTREAM_DOH_PORT=upstream.doh_port, MAX_ENTRIES=entries,
                                    QUERY_LOG=query_log, WORKERS=threads)
        argv = [ipdirect_path, "run", "--config", config]
    elif program(server_name) == "unbound":
        config = environment.render("unbound-dns-cache.conf.in", f"dns/{server_name}/unbound.conf", DNS_PORT=port,
                                    UPSTREAM_PORT=upstream.port, THREADS=threads, SERVER_DIR=f"dns/{server_name}")
        argv = ["unbound", "-d", "-c", config]
    elif server_name == "dnsmasq":
        config = environment.render("dnsmasq-dns-cache.conf.in", "dns/dnsmasq/dnsmasq.conf", DNS_PORT=port,
                                    UPSTREAM_PORT=upstream.port, DNSMASQ_CACHE_SIZE=entries)
        argv = ["dnsmasq", f"--conf-file={config}"]
    else:
        raise ValueError(server_name)
    # Ready once it accepts TCP on the port: each of the three opens UDP and TCP there together.
    return Daemon(server_name, [*wrapper, *argv], port, environment.log(f"dns-{server_name}.out"))

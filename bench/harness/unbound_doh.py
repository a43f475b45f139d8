"""unbound as the RFC 8484 DoH server of the resolver figures: loopback only, answering only the names it is
given (an A record 127.0.0.1 each, the origin), never recursing. Configured by config/unbound-doh.conf.in."""

import os
import subprocess

from harness.daemon import Daemon
from harness.targets import free_port

# The host name in the provider URL; it is on the run's server certificate and never looked up (ipdirect
# reaches it at its bootstrap address).
DOH_HOST = "doh.test"
DOH_PATH = "/dns-query"
LOOPBACK = "127.0.0.1"
# Longer than any run, so no answer expires while it is measured (dnsmasq's local-ttl is the same).
RECORD_TTL_SECONDS = 300
# One unbound-control call on a busy machine.
CONTROL_TIMEOUT_SECONDS = 10
# unbound-control stats: every query received, over any transport.
QUERIES_STATISTIC = "total.num.queries"


def unbound_query_count(config, error):
    """Queries an unbound started from `config` received since start, read with unbound-control; `error` (an
    exception class) when it cannot be read."""
    argv = ["unbound-control", "-c", config, "stats_noreset"]
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=CONTROL_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired as timeout:
        raise error(f"unbound-control did not answer within {CONTROL_TIMEOUT_SECONDS} s") from timeout
    for line in result.stdout.splitlines():
        key, _, value = line.partition("=")
        if key == QUERIES_STATISTIC:
            return int(value)
    raise error(f"unbound-control stats_noreset (exit {result.returncode}) printed no "
                f"{QUERIES_STATISTIC}: {(result.stderr or result.stdout).strip()[:300]}")


class UnboundError(Exception):
    """unbound-control failed or printed no query count."""


class UnboundDoh:
    """One unbound process; `url` and `bootstrap` are what an ipdirect `doh` provider needs."""

    def __init__(self, environment, names):
        self.port = free_port()
        self.control_port = free_port()
        directory = os.path.join(environment.run_dir, "unbound")
        os.makedirs(directory, exist_ok=True)
        records = "".join(f'  local-data: "{name}. {RECORD_TTL_SECONDS} IN A {LOOPBACK}"\n' for name in names)
        with open(os.path.join(directory, "local-data.conf"), "w") as local_data:
            local_data.write("server:\n" + records)
        self.config = environment.render("unbound-doh.conf.in", "unbound/unbound.conf",
                                         DOH_PORT=self.port, CONTROL_PORT=self.control_port)
        self.daemon = Daemon("unbound", ["unbound", "-d", "-c", self.config], self.port,
                             environment.log("unbound.out"))

    def __str__(self):
        return f"unbound DoH at {self.url} (bootstrap {self.bootstrap})"

    @property
    def url(self):
        return f"https://{DOH_HOST}:{self.port}{DOH_PATH}"

    @property
    def bootstrap(self):
        return LOOPBACK

    def start(self):
        self.daemon.start()

    def stop(self):
        self.daemon.stop()

    def query_count(self):
        """Queries received since start (A and AAAA count one each)."""
        return unbound_query_count(self.config, UnboundError)

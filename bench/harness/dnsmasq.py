"""dnsmasq as the DNS server of the resolver figures' system-resolver runs, and of the nginx-proxy and haproxy
peers (harness/peers.py), which resolve through a DNS server only: loopback only, answering only the
names it is given (127.0.0.1 each, the origin), no upstream. Configured by config/dnsmasq.conf.in.

squid's `dns_nameservers` takes addresses without a port, and glibc's resolv.conf (tinyproxy's resolver) has
no port either: both ask port 53. So dnsmasq listens on port 53 of a loopback address of its own, where
nothing else on the machine listens, when that can be bound (root). Otherwise it takes a free port on
127.0.0.1, ipdirect still uses it (`system_nameservers` takes a port), and squid and tinyproxy are left out.
"""

import os
import re
import signal
import socket
import time

from harness.daemon import Daemon
from harness.targets import free_port

# Any 127.0.0.0/8 address is loopback on Linux; this one is unlikely to be used by anything else.
OWN_LOOPBACK_ADDRESS = "127.83.53.1"
DNS_PORT = 53
FALLBACK_ADDRESS = "127.0.0.1"
ORIGIN_ADDRESS = "127.0.0.1"
# How long dnsmasq may take to write its statistics after SIGUSR1.
STATISTICS_TIMEOUT_SECONDS = 5
STATISTICS_POLL_SECONDS = 0.05
# The statistics line dnsmasq logs on SIGUSR1 (dnsmasq 2.90): counts since start.
STATISTICS_LINE = re.compile(r"queries forwarded (\d+), queries answered locally (\d+)")


class DnsmasqError(Exception):
    """dnsmasq wrote no statistics when asked."""


def _port_53_free(address):
    """True when both UDP and TCP port 53 of `address` can be bound by this process."""
    for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
        with socket.socket(socket.AF_INET, kind) as probe:
            try:
                probe.bind((address, DNS_PORT))
            except OSError:
                return False
    return True


class Dnsmasq:
    """One dnsmasq process; `on_port_53` says whether squid and tinyproxy can use it."""

    def __init__(self, environment, names, name="dnsmasq", port_53=True):
        """`name` is the instance's directory and log name; `port_53=False` takes a free port on 127.0.0.1 even
        when port 53 is free, for a server that can ask any port (nginx's resolver, haproxy's resolvers) and
        so never holds port 53 from the resolver figures' instance."""
        if port_53 and _port_53_free(OWN_LOOPBACK_ADDRESS):
            self.host, self.port = OWN_LOOPBACK_ADDRESS, DNS_PORT
        else:
            self.host, self.port = FALLBACK_ADDRESS, free_port()
        directory = os.path.join(environment.run_dir, name)
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "names.conf"), "w") as records:
            records.write("".join(f"host-record={name},{ORIGIN_ADDRESS}\n" for name in names))
        self.log_path = os.path.join(directory, "dnsmasq.log")
        config = environment.render("dnsmasq.conf.in", f"{name}/dnsmasq.conf", DNS_HOST=self.host,
                                    DNS_PORT=self.port, DNS_DIR=directory)
        self.daemon = Daemon(name, ["dnsmasq", f"--conf-file={config}"], self.port,
                             environment.log(f"{name}.out"), host=self.host)

    def __str__(self):
        return f"dnsmasq at {self.address}"

    @property
    def on_port_53(self):
        return self.port == DNS_PORT

    @property
    def address(self):
        """host:port, as ipdirect's `system_nameservers` takes it."""
        return f"{self.host}:{self.port}"

    def start(self):
        self.daemon.start()

    def stop(self):
        self.daemon.stop()

    def query_count(self):
        """Queries received since start (A and AAAA count one each), from the statistics dnsmasq logs on
        SIGUSR1 (it runs in the foreground, so the pid we started is dnsmasq itself)."""
        before = self._statistics_lines()
        os.kill(self.daemon.process.pid, signal.SIGUSR1)
        deadline = time.monotonic() + STATISTICS_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            lines = self._statistics_lines()
            if len(lines) > len(before):
                forwarded, answered = lines[-1]
                return forwarded + answered
            time.sleep(STATISTICS_POLL_SECONDS)
        raise DnsmasqError(f"dnsmasq wrote no statistics to {self.log_path} within {STATISTICS_TIMEOUT_SECONDS} s")

    def _statistics_lines(self):
        try:
            with open(self.log_path, errors="replace") as log:
                text = log.read()
        except OSError:
            return []
        return [(int(forwarded), int(answered)) for forwarded, answered in STATISTICS_LINE.findall(text)]

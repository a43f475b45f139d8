"""Three more peers from Debian 12's packages, each a forward proxy for plain http:// requests started from its own
config template: nginx-proxy (nginx 1.22), haproxy (HAProxy 2.6) and ats (Apache Traffic Server 9).

nginx and haproxy resolve a request's host only through a DNS server (neither reads /etc/hosts for it), so each
gets a dnsmasq of its own on a free loopback port that knows bench.test, started and stopped with it; ats reads
the run's hosts file, like squid. What each cannot serve is in targets.CANNOT_CONNECT and bench/README.md.
"""

import os

from harness.daemon import Daemon
from harness.dnsmasq import Dnsmasq
from harness.targets import BENCH_HOST, free_port

HAPROXY_USER = "haproxy"
ATS_USER = "trafficserver"
# ats's runroot directories, all under the run's ats/ directory and owned by ATS_USER (ats-runroot.yaml.in).
ATS_DIRS = ("etc", "var", "run", "log")
# Config files ats insists on finding in its sysconfdir, left empty: no cache disks (storage.config), no remap
# rules, plugins, parents, split DNS, SOCKS parents or TLS listeners.
ATS_EMPTY_CONFIGS = ("storage.config", "remap.config", "plugin.config", "cache.config", "hosting.config",
                     "parent.config", "volume.config", "splitdns.config", "socks.config", "ssl_multicert.config")
ATS_EMPTY_SNI = "sni: []\n"


class ResolvingDaemon(Daemon):
    """A server together with the dnsmasq it resolves through: started before it, stopped after it. Its cost
    figures are the server's alone; each name is looked up once and then cached (see the templates)."""

    def __init__(self, dns, *arguments, **keywords):
        super().__init__(*arguments, **keywords)
        self.dns = dns

    def start(self):
        self.dns.start()
        try:
            super().start()
        except BaseException:
            self.dns.stop()
            raise

    def stop(self):
        try:
            super().stop()
        finally:
            self.dns.stop()


def nginx_proxy(environment):
    """nginx in the foreground (daemon off), two workers, with an upstream pool for the known origin."""
    port = free_port()
    directory = os.path.join(environment.run_dir, "nginx-proxy")
    os.makedirs(directory, exist_ok=True)
    dns = Dnsmasq(environment, [BENCH_HOST], name="nginx-proxy-dnsmasq", port_53=False)
    config = environment.render("nginx-proxy.conf.in", "nginx-proxy/nginx.conf", NGINX_PROXY_PORT=port,
                                DNS_ADDRESS=dns.address)
    # -e: the error log from the first moment, before the config's error_log applies.
    argv = ["nginx", "-p", directory, "-c", config, "-e", os.path.join(directory, "error.log")]
    return ResolvingDaemon(dns, "nginx-proxy", argv, port, environment.log("nginx-proxy.out"))


def haproxy(environment):
    """haproxy in the foreground (-db), two threads, resolving through its own dnsmasq."""
    port = free_port()
    environment.private_dir("haproxy", HAPROXY_USER)
    dns = Dnsmasq(environment, [BENCH_HOST], name="haproxy-dnsmasq", port_53=False)
    config = environment.render("haproxy.cfg.in", "haproxy/haproxy.conf", HAPROXY_PORT=port,
                                DNS_ADDRESS=dns.address, HAPROXY_USER=HAPROXY_USER)
    return ResolvingDaemon(dns, "haproxy", ["haproxy", "-db", "-f", config], port,
                           environment.log("haproxy.out"))


def ats(environment):
    """traffic_server on its own runroot in the run's directory (no traffic_manager), resolving bench.test from
    the run's hosts file."""
    port = free_port()
    environment.private_dir("ats", ATS_USER)
    for sub in ATS_DIRS:
        environment.private_dir(os.path.join("ats", sub), ATS_USER)
    values = dict(ATS_PORT=port, ATS_USER=ATS_USER)
    environment.render("ats-records.config.in", "ats/etc/records.config", **values)
    environment.render("ats-ip_allow.yaml.in", "ats/etc/ip_allow.yaml", **values)
    for name in ATS_EMPTY_CONFIGS:
        environment.write(f"ats/etc/{name}", "")
    environment.write("ats/etc/sni.yaml", ATS_EMPTY_SNI)
    runroot = environment.render("ats-runroot.yaml.in", "ats/runroot.yaml", **values)
    return Daemon("ats", ["traffic_server", f"--run-root={runroot}"], port, environment.log("ats.out"))


# bench/run's target name -> the function that makes its (unstarted) Daemon.
PEERS = {"nginx-proxy": nginx_proxy, "haproxy": haproxy, "ats": ats}

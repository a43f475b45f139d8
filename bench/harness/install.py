"""Installs the Debian packages the benchmark needs, and nothing when they are already there."""

import os
import subprocess

# nginx-light is Debian 12's small nginx; openssl makes the test certificates; util-linux has unshare;
# dante-server is danted, the SOCKS5 server the SOCKS tunnel rows compare ipdirect with; haproxy and
# trafficserver are two more peers (nginx-light, the origin, is the third).
REQUIRED_PACKAGES = ["nginx-light", "wrk", "tinyproxy", "squid", "curl", "openssl", "util-linux", "dante-server",
                     "haproxy", "trafficserver"]
# The DNS servers of the resolver figures: unbound (DoH, and unbound-control) and dnsmasq's binary alone
# (dnsmasq-base, without the package that runs it as a system service).
RESOLVER_PACKAGES = ["unbound", "dnsmasq-base"]
# The DNS listener table (bench/dns): the load generator, and unbound and dnsmasq as ipdirect's peers and
# their upstream (unbound-control counts the upstream's queries).
DNS_PACKAGES = ["dnsperf", "unbound", "dnsmasq-base"]
# The scheduling scenario's network namespace (ip, from iproute2) and its blackhole rule (nft).
SCHEDULING_PACKAGES = ["iproute2", "nftables"]
# The transparent table: its namespaces and rules, and the counted runs of both ways.
TRANSPARENT_PACKAGES = ["iproute2", "nftables", "valgrind", "strace"]
# invoke-rc.d and deb-systemd-invoke ask this script whether a package may start its service;
# exit status 101 means "no" (policy-rc.d interface, /usr/share/doc/init-system-helpers/README.policy-rc.d).
POLICY_RC_PATH = "/usr/sbin/policy-rc.d"
POLICY_RC_DENY_ALL = "#!/bin/sh\n# Temporary: keeps package installs from starting system services.\nexit 101\n"
# apt-get update and install on a slow mirror; bounded so the run cannot hang.
APT_TIMEOUT_SECONDS = 900


def missing_packages(packages=REQUIRED_PACKAGES):
    missing = []
    for package in packages:
        result = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package],
                                capture_output=True, text=True)
        if result.returncode != 0 or not result.stdout.endswith(" installed"):
            missing.append(package)
    return missing


def ensure_packages(log, packages=REQUIRED_PACKAGES):
    """apt-get installs whatever is missing of `packages`. The packages' own services (nginx on port 80,
    squid on 3128, tinyproxy on 8888, unbound on 53, danted from /etc/danted.conf, haproxy from
    /etc/haproxy/haproxy.cfg, trafficserver on 8080) are kept from starting: the
    benchmark runs its own instances on free ports."""
    missing = missing_packages(packages)
    if not missing:
        log(f"packages present: {' '.join(packages)}")
        return
    if os.geteuid() != 0:
        raise SystemExit(f"missing packages {' '.join(missing)}; run bench/run as root to install them")
    log(f"installing {' '.join(missing)}")
    environment = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    created_policy = not os.path.exists(POLICY_RC_PATH)
    if created_policy:
        with open(POLICY_RC_PATH, "w") as policy:
            policy.write(POLICY_RC_DENY_ALL)
        os.chmod(POLICY_RC_PATH, 0o755)
    try:
        subprocess.run(["apt-get", "update"], env=environment, check=True, timeout=APT_TIMEOUT_SECONDS)
        subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", *missing],
                       env=environment, check=True, timeout=APT_TIMEOUT_SECONDS)
    finally:
        if created_policy:
            os.remove(POLICY_RC_PATH)
    still_missing = missing_packages(packages)
    if still_missing:
        raise SystemExit(f"apt-get did not install {' '.join(still_missing)}")

"""The DNS loop guard at run time (docs/behaviour.md "Use it as the machine's resolver"): an ipdirect whose resolv.conf
names its own DNS listener, with `system` in `[resolver] order` and no `system_nameservers`, finds the loop with a probe
at start, logs `event=dns_loop` once, counts it, and stops asking the system source; a name only the system
resolver could answer then fails at once instead of waiting for itself, HTTPDNS names still resolve, and the
listener hears no more than the probe."""

import re
import time
from dataclasses import replace

import pytest
import requests

from harness.dns_server import start_dnsmasq
from harness.ipdirect_proxy import ConfigAdditions
from harness.ports import LOOPBACK
from harness.resolution_checks import NO_POOLING, fetch
from harness.resolv_conf_ipdirect import ResolvConfIpdirect, mount_namespaces_available
from harness.resolver_config import httpdns_sections
from harness.resolver_scenarios import events, wait_for_event

PROVIDER = "unbound-get"
# glibc's and evdns's resolv.conf take no port: the listener needs port 53, on an address of its own.
OWN_LISTENER = "127.0.0.154"
# The provider answers these names only; anything else goes to the system source alone.
PROVIDER_DOMAINS = ["*.loop-guard.test"]
# Names only the system resolver knows: outside the provider's domains. The system's answers are cached, so
# each step of a test asks a name of its own.
SYSTEM_DOMAIN = "elsewhere.test"
# Long enough that a lookup waiting for itself would show: the loop would cost this, the guard nothing.
SYSTEM_TIMEOUT_SECONDS = 3
FAILS_FAST_SECONDS = 1.0
ADMIN_TIMEOUT_SECONDS = 10
# The probe is one lookup: evdns asks A and AAAA, and may ask again once.
MOST_PROBE_QUERIES = 4


@pytest.fixture
def ipdirect_with_resolv_conf(provider_setup, network, certificates, tmp_path):
    """`start(nameserver)`: an ipdirect whose /etc/resolv.conf names `nameserver` (evdns takes `ADDRESS:PORT`),
    its listener on OWN_LISTENER:53; yields (setup, ipdirect, resolv.conf path)."""
    if not mount_namespaces_available():
        pytest.skip("needs root for a mount namespace (unshare -m)")
    started = []

    def start(nameserver: str):
        setup = provider_setup(PROVIDER)
        resolv_conf = tmp_path / "resolv.conf"
        resolv_conf.write_text(f"nameserver {nameserver}\n")
        provider = replace(setup.provider, domains=PROVIDER_DOMAINS)
        additions = ConfigAdditions(
            proxy_keys=dict(NO_POOLING),
            resolver_keys={"order": ["hosts", "httpdns", "system"], "system_nameservers": [],
                           "system_timeout": SYSTEM_TIMEOUT_SECONDS},
            sections=httpdns_sections(provider) + f'\n[dns]\nlisten = ["{OWN_LISTENER}:53"]\nquery_log_level = "info"\n',
            environment=dict(setup.environment),
            admin=True)
        own = ResolvConfIpdirect(tmp_path / "ipdirect", network, certificates.ca_file, additions, resolv_conf)
        own.start()
        started.append(own)
        return setup, own, resolv_conf

    yield start
    for own in started:
        running = own.is_running()
        own.stop()
        assert running, own.describe()


def metric(own, name: str) -> float:
    page = requests.get(own.admin_url("/metrics"), timeout=ADMIN_TIMEOUT_SECONDS).text
    samples = re.findall(rf"^{name}(?:{{[^}}]*}})? (\S+)$", page, re.M)
    return sum(float(value) for value in samples)


def test_a_resolv_conf_naming_the_own_listener_switches_the_system_source_off(ipdirect_with_resolv_conf, network):
    setup, own, _ = ipdirect_with_resolv_conf(OWN_LISTENER)
    detected = wait_for_event(own, "dns_loop", since_start=True)
    assert detected["probe"].endswith(".ipdirect-loop.invalid"), detected
    assert "system_nameservers" in detected["details"], detected
    assert " warning event=dns_loop " in own.process.stderr_text()
    assert metric(own, "ipdirect_dns_loop_detections_total") == 1

    started = time.monotonic()
    failed = fetch_only_system(own, network)
    assert failed.status == 502 and "dns_loop" in failed.text, failed.describe()
    assert time.monotonic() - started < FAILS_FAST_SECONDS, "the lookup waited: the system source is still asked"

    httpdns_name = "www.loop-guard.test"
    setup.set_addresses(httpdns_name, a=(LOOPBACK,))
    served = fetch(own, network.plain_url("/", httpdns_name), network.plain_authority(httpdns_name))
    assert served.status == 200, served.describe()

    heard = metric(own, "ipdirect_dns_queries_total")
    assert heard <= MOST_PROBE_QUERIES, f"the listener heard {heard} queries"
    log = own.process.stderr_text()
    heard_names = [query["name"] for query in events(log, "dns_query")]
    assert all(name.endswith(".ipdirect-loop.invalid.") for name in heard_names), heard_names
    assert len(events(log, "dns_loop")) == 1, log


def test_a_resolv_conf_changed_to_name_the_own_listener_is_found_and_changing_it_back_clears_it(
        ipdirect_with_resolv_conf, network, tmp_path):
    local_dns = start_dnsmasq("local-dns", tmp_path / "local-dns", [f"--address=/{SYSTEM_DOMAIN}/{LOOPBACK}"])
    try:
        _, own, resolv_conf = ipdirect_with_resolv_conf(local_dns.address)
        assert fetch_only_system(own, network, "before").status == 200

        # Rewritten in place: the bind mount keeps showing this file.
        resolv_conf.write_text(f"nameserver {OWN_LISTENER}\n")
        wait_for_event(own, "resolv_conf_changed", since_start=True)
        wait_for_event(own, "dns_loop", since_start=True)
        assert metric(own, "ipdirect_dns_loop_detections_total") == 1
        assert fetch_only_system(own, network, "during").status == 502

        resolv_conf.write_text(f"nameserver {local_dns.address}\n")
        wait_for_event(own, "dns_loop_cleared", since_start=True)
        assert fetch_only_system(own, network, "after").status == 200
        assert len(events(own.process.stderr_text(), "dns_loop")) == 1
    finally:
        local_dns.stop()


def fetch_only_system(own, network, label: str = "only-system"):
    """A request for `label`.SYSTEM_DOMAIN, a name only the system resolver can answer."""
    name = f"{label}.{SYSTEM_DOMAIN}"
    return fetch(own, network.plain_url("/", name), network.plain_authority(name))

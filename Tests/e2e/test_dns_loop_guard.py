"""The DNS loop guard at run time (README "Use it as the machine's resolver"): an ipdirect whose resolv.conf names
its own DNS listener, with `system` in `[resolver] order` and no `system_nameservers`, finds the loop with a probe
at start, logs `event=dns_loop` once, counts it, and stops asking the system source; a name only the system
resolver could answer then fails at once instead of waiting for itself, HTTPDNS names still resolve, and the
listener hears no more than the probe."""

import re
import time
from dataclasses import replace

import pytest
import requests

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
# Long enough that a lookup waiting for itself would show: the loop would cost this, the guard nothing.
SYSTEM_TIMEOUT_SECONDS = 3
FAILS_FAST_SECONDS = 1.0
ADMIN_TIMEOUT_SECONDS = 10
# The probe is one lookup: evdns asks A and AAAA, and may ask again once.
MOST_PROBE_QUERIES = 4


@pytest.fixture
def looping_ipdirect(provider_setup, network, certificates, tmp_path):
    if not mount_namespaces_available():
        pytest.skip("needs root for a mount namespace (unshare -m)")
    setup = provider_setup(PROVIDER)
    resolv_conf = tmp_path / "resolv.conf"
    resolv_conf.write_text(f"nameserver {OWN_LISTENER}\n")
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
    yield setup, own
    running = own.is_running()
    own.stop()
    assert running, own.describe()


def metric(own, name: str) -> float:
    page = requests.get(own.admin_url("/metrics"), timeout=ADMIN_TIMEOUT_SECONDS).text
    samples = re.findall(rf"^{name}(?:{{[^}}]*}})? (\S+)$", page, re.M)
    return sum(float(value) for value in samples)


def test_a_resolv_conf_naming_the_own_listener_switches_the_system_source_off(looping_ipdirect, network):
    setup, own = looping_ipdirect
    detected = wait_for_event(own, "dns_loop", since_start=True)
    assert detected["probe"].endswith(".ipdirect-loop.invalid"), detected
    assert "system_nameservers" in detected["details"], detected
    assert " warning event=dns_loop " in own.process.stderr_text()
    assert metric(own, "ipdirect_dns_loop_detections_total") == 1

    only_system = "only-system.elsewhere.test"
    started = time.monotonic()
    failed = fetch(own, network.plain_url("/", only_system), network.plain_authority(only_system))
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

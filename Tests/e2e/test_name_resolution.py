"""Upstream names resolve through static hosts or the system resolver (here dnsmasq); failures name the host."""

import pytest

from harness.dns_server import SYSTEM_RESOLVED_NAME
from harness.ports import ipv6_loopback_available
from harness.proxy_status import assert_generated_error
from harness.raw_http import RawConnection, get_request

UNRESOLVABLE_NAME = "nxdomain.test"


def fetch(address, url: str, authority: str):
    with RawConnection(address, timeout=30) as client:
        client.send(get_request(url, authority))
        return client.read_response()


@pytest.mark.peers("squid", "tinyproxy")
def test_static_hosts_entry_is_used_for_the_upstream(proxy, network):
    response = fetch(proxy.address, network.plain_url("/echo", "a.test"), network.plain_authority("a.test"))
    assert response.status == 200
    assert response.text.startswith(f"host={network.plain_authority('a.test')} ")
    if proxy.has_access_log:
        proxy.wait_for_access_log("GET", network.plain_authority("a.test"), "200")


def test_system_resolver_path_resolves_a_name_only_dnsmasq_knows(proxy, network):
    assert SYSTEM_RESOLVED_NAME not in network.static_hosts
    authority = network.plain_authority(SYSTEM_RESOLVED_NAME)
    response = fetch(proxy.address, network.plain_url("/echo", SYSTEM_RESOLVED_NAME), authority)
    assert response.status == 200, response.describe()
    assert response.text.startswith(f"host={authority} ")
    proxy.wait_for_access_log("GET", authority, "200")


def test_resolution_failure_gives_502_naming_the_host(proxy, network):
    authority = network.plain_authority(UNRESOLVABLE_NAME)
    response = fetch(proxy.address, network.plain_url("/", UNRESOLVABLE_NAME), authority)
    assert_generated_error(response, 502, {"dns_error", "dns_timeout", "destination_not_found"},
                           mentions=(UNRESOLVABLE_NAME,))
    proxy.wait_for_access_log("GET", authority, "502")


@pytest.mark.skipif(not ipv6_loopback_available(), reason="no ::1 on this machine")
def test_second_listener_on_ipv6_loopback_serves_requests(proxy, network):
    assert proxy.ipv6_port, "ipdirect was not given a [::1] listener"
    response = fetch(("::1", proxy.ipv6_port), network.plain_url("/echo"), network.plain_authority())
    assert response.status == 200

"""Upstreams that refuse or never answer produce errors that name what was tried (RFC 9209)."""

import time

import pytest

from harness.ipdirect_proxy import SETTINGS
from harness.network import UNUSED_LOOPBACK_ADDRESSES
from harness.proxy_status import assert_generated_error
from harness.raw_http import RawConnection, get_request

# Slack on top of connect_timeout for scheduling on a busy machine.
TIMEOUT_SLACK_SECONDS = 5
# A timeout that fires much earlier than configured would mean the setting is ignored.
EARLIEST_TIMEOUT_FRACTION = 0.75


def request_through(proxy, url: str, authority: str, timeout: float = 30):
    with RawConnection(proxy.address, timeout=timeout) as client:
        client.send(get_request(url, authority))
        return client.read_response()


def test_upstream_down_gives_502_naming_the_address(proxy, network):
    authority = f"down.test:{network.closed_port}"
    response = request_through(proxy, f"http://{authority}/", authority)
    assert_generated_error(response, 502, {"connection_refused"}, mentions=(f"127.0.0.1:{network.closed_port}",))
    proxy.wait_for_access_log("GET", authority, "502")


def test_upstream_down_on_every_address_gives_502_naming_each_address(proxy, network):
    authority = f"all-down.test:{network.closed_port}"
    response = request_through(proxy, f"http://{authority}/", authority)
    tried = tuple(f"{address}:{network.closed_port}" for address in UNUSED_LOOPBACK_ADDRESSES)
    assert_generated_error(response, 502, {"connection_refused"}, mentions=tried)


@pytest.mark.peers("squid", "tinyproxy")
def test_a_name_whose_first_address_refuses_is_served_from_the_next(proxy, network):
    authority = network.plain_authority("fallback.test")
    response = request_through(proxy, network.plain_url("/echo", "fallback.test"), authority)
    assert response.status == 200, response.describe()
    assert response.text.startswith(f"host={authority} ")


def test_upstream_that_never_accepts_gives_504_after_the_connect_timeout(proxy, network, blackhole_listener):
    authority = f"blackhole.test:{network.blackhole_port}"
    started = time.monotonic()
    response = request_through(proxy, f"http://{authority}/", authority,
                               timeout=SETTINGS.connect_timeout + TIMEOUT_SLACK_SECONDS + 10)
    elapsed = time.monotonic() - started
    assert_generated_error(response, 504, {"connection_timeout"}, mentions=(f"127.0.0.1:{network.blackhole_port}",))
    assert SETTINGS.connect_timeout * EARLIEST_TIMEOUT_FRACTION <= elapsed \
        <= SETTINGS.connect_timeout + TIMEOUT_SLACK_SECONDS, f"504 after {elapsed:.1f}s"
    proxy.wait_for_access_log("GET", authority, "504")

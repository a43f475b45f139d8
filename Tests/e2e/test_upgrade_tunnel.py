"""A plain-HTTP Upgrade answered 101 turns the connection into a tunnel (RFC 9110 §7.8)."""

from harness.raw_http import RawConnection
from harness.websocket_client import assert_echo_round_trips


def test_websocket_echo_round_trips_through_an_absolute_form_upgrade(proxy, network):
    with RawConnection(proxy.address) as client:
        assert_echo_round_trips(client, network.plain_url("/ws"), network.plain_authority())
    proxy.wait_for_access_log("GET", network.plain_authority(), "101")

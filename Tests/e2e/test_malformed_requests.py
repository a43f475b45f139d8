"""Requests that are not HTTP, or too large, are refused and the connection closed; the proxy keeps serving."""

import time

import pytest

from harness.ipdirect_proxy import SETTINGS
from harness.proxy_status import assert_generated_error
from harness.raw_http import RawConnection, get_request

GARBAGE = b"\x16\x03\x01\x02\x00 this is not HTTP at all\r\n\r\n"
# Comfortably past max_header_bytes, in one header field.
OVERSIZED_FIELD_BYTES = SETTINGS.max_header_bytes + 8192


@pytest.mark.peers("squid")
def test_garbage_request_gets_400_and_the_next_client_is_served(proxy, network):
    with RawConnection(proxy.address) as client:
        client.send(GARBAGE)
        response = client.read_response()
        assert response.status == 400, response.describe()
        if proxy.kind == "ipdirect":
            assert_generated_error(response, 400)
        assert client.closed_by_peer(), "connection left open after a 400"
    with RawConnection(proxy.address) as next_client:
        next_client.send(get_request(network.plain_url("/echo"), network.plain_authority()))
        assert next_client.read_response().status == 200


def test_request_head_larger_than_the_limit_gets_431_and_close(proxy, network):
    padding = "x" * OVERSIZED_FIELD_BYTES
    with RawConnection(proxy.address) as client:
        client.send(get_request(network.plain_url("/echo"), network.plain_authority(), f"X-Padding: {padding}\r\n"))
        response = client.read_response()
        assert_generated_error(response, 431)
        assert client.closed_by_peer(), "connection left open after a 431"


# A request-target of 64 KiB: twice max_header_bytes, as a runaway query string would be.
LONG_TARGET_BYTES = 64 * 1024


@pytest.mark.parametrize("ending", ["whole request", "line still arriving"])
def test_request_line_longer_than_the_limit_gets_414_close_and_reaches_nothing(proxy, network, counting_origin,
                                                                               ending):
    assert LONG_TARGET_BYTES > SETTINGS.max_header_bytes
    url = network.counting_url("/" + "q" * LONG_TARGET_BYTES)
    request = get_request(url, f"count.test:{network.counting_port}")
    if ending == "line still arriving":
        request = request.split(b"\r\n", 1)[0][:-len(" HTTP/1.1")]
    with RawConnection(proxy.address) as client:
        client.send(request)
        response = client.read_response()
        assert_generated_error(response, 414, {"http_request_error"})
        assert response.reason == "URI Too Long", response.describe()
        assert response.header("Connection") == "close", response.describe()
        assert client.closed_by_peer(), "connection left open after a 414"
    counting_origin.settle(0.5)
    assert counting_origin.connection_count == 0, counting_origin.received()


def test_request_head_within_the_limit_is_served(proxy, network):
    padding = "x" * (SETTINGS.max_header_bytes // 2)
    with RawConnection(proxy.address) as client:
        client.send(get_request(network.plain_url("/echo"), network.plain_authority(), f"X-Padding: {padding}\r\n"))
        assert client.read_response().status == 200


# Pause between single bytes of a trickled head; 1 ms keeps the test under a second.
TRICKLE_PAUSE_SECONDS = 0.001


@pytest.mark.peers("squid")
def test_request_head_trickled_one_byte_at_a_time_is_served(proxy, network):
    request = get_request(network.plain_url("/echo"), network.plain_authority(), "X-Trickle: slow\r\n")
    with RawConnection(proxy.address) as client:
        for index in range(len(request)):
            client.send(request[index:index + 1])
            time.sleep(TRICKLE_PAUSE_SECONDS)
        response = client.read_response()
        assert response.status == 200, response.describe()
        assert f"host={network.plain_authority()}" in response.text


def test_bare_lf_head_trickled_one_byte_at_a_time_still_gets_400(proxy, network):
    request = f"GET {network.plain_url('/echo')} HTTP/1.1\nHost: {network.plain_authority()}\n\n".encode()
    with RawConnection(proxy.address) as client:
        for index in range(len(request)):
            client.send(request[index:index + 1])
            time.sleep(TRICKLE_PAUSE_SECONDS)
        assert_generated_error(client.read_response(), 400)
        assert client.closed_by_peer(), "connection left open after a 400"

"""Responses without a body or with special meaning pass through framed right (RFC 9112 §6.3)."""

import pytest

from harness.body_echo_origin import (ONE_BYTE_CHUNKS_BODY, ONE_BYTE_CHUNKS_PATH, ONE_BYTE_CHUNKS_TRAILER,
                                      received_request)
from harness.nginx_origin import STATIC_PAGE_TEXT
from harness.raw_http import RawConnection, get_request


def assert_connection_still_serves(connection: RawConnection, network) -> None:
    """A follow-up GET on the same connection: it fails if the previous response was mis-framed."""
    connection.send(get_request(network.plain_url("/echo"), network.plain_authority()))
    follow_up = connection.read_response()
    assert follow_up.status == 200 and follow_up.text.startswith("host="), follow_up.describe()


@pytest.mark.peers("squid")
def test_head_response_has_content_length_but_no_body(proxy, network):
    with RawConnection(proxy.address) as client:
        client.send(get_request(network.plain_url("/static/page.html"), network.plain_authority(), method="HEAD"))
        response = client.read_response("HEAD")
        assert response.status == 200
        assert response.header("Content-Length") == str(len(STATIC_PAGE_TEXT))
        assert_connection_still_serves(client, network)
    if proxy.has_access_log:
        proxy.wait_for_access_log("HEAD", network.plain_authority(), "200")


@pytest.mark.peers("squid")
def test_no_content_response_is_passed_without_body(proxy, network):
    with RawConnection(proxy.address) as client:
        client.send(get_request(network.plain_url("/no-content"), network.plain_authority()))
        response = client.read_response()
        assert response.status == 204 and response.body == b""
        assert_connection_still_serves(client, network)


@pytest.mark.peers("squid")
def test_not_modified_response_is_passed_without_body(proxy, network):
    with RawConnection(proxy.address) as client:
        page = network.plain_url("/static/page.html")
        client.send(get_request(page, network.plain_authority()))
        first = client.read_response()
        assert first.status == 200 and first.text == STATIC_PAGE_TEXT
        etag = first.header("ETag")
        client.send(get_request(page, network.plain_authority(), f"If-None-Match: {etag}\r\n"))
        response = client.read_response()
        assert response.status == 304 and response.body == b"", response.describe()
        assert_connection_still_serves(client, network)


@pytest.mark.peers("squid", "tinyproxy")
def test_redirect_is_passed_through_not_followed(proxy, network):
    with RawConnection(proxy.address) as client:
        client.send(get_request(network.plain_url("/redirect"), network.plain_authority()))
        response = client.read_response()
    assert response.status == 302, response.describe()
    assert response.header("Location") == network.plain_url("/echo")
    if proxy.has_access_log:
        proxy.wait_for_access_log("GET", network.plain_authority(), "302")


@pytest.mark.parametrize("cookie_lines, cookie_seen", [
    pytest.param(["session=abc123; theme=dark"], "session=abc123; theme=dark", id="one-cookie-line",
                 marks=pytest.mark.peers("squid", "tinyproxy")),
    # tinyproxy 1.11 keeps only the first of repeated fields, so only squid validates this case.
    pytest.param(["first=1", "second=2"], "first=1; second=2", id="two-cookie-lines",
                 marks=pytest.mark.peers("squid")),
])
def test_host_and_cookie_arrive_unchanged(proxy, network, cookie_lines, cookie_seen):
    cookies = "".join(f"Cookie: {line}\r\n" for line in cookie_lines)
    with RawConnection(proxy.address) as client:
        client.send(get_request(network.plain_url("/echo"), network.plain_authority(), cookies))
        response = client.read_response()
    assert response.status == 200
    assert response.text.startswith(f"host={network.plain_authority()} cookie={cookie_seen} "), response.text


def test_a_chunked_response_of_one_byte_chunks_arrives_whole_with_its_trailer(proxy, body_echo_origin):
    with RawConnection(proxy.address) as client:
        client.send(get_request(body_echo_origin.url(ONE_BYTE_CHUNKS_PATH), body_echo_origin.authority))
        response = client.read_response()
        assert response.status == 200 and response.body == ONE_BYTE_CHUNKS_BODY, response.describe()
        assert response.trailers == [ONE_BYTE_CHUNKS_TRAILER], response.trailers
        # A response framed wrong would leave bytes behind that spoil the next one.
        client.send(get_request(body_echo_origin.url("/after-one-byte-chunks"), body_echo_origin.authority))
        assert received_request(client.read_response())["path"] == "/after-one-byte-chunks"

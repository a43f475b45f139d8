"""Persistent client connections (RFC 9112 §9.3): many requests, one TCP connection to the proxy."""

import pytest

from harness.ab_load import ab_available, run_ab
from harness.chunked_origin import ChunkedOrigin
from harness.proxy_status import assert_generated_error
from harness.raw_http import RawConnection

# Enough requests that a proxy closing after each one could not pass by luck.
REQUESTS_ON_ONE_CONNECTION = 6


@pytest.mark.peers("squid")
def test_keep_alive_gets_reuse_one_client_connection(proxy, http, network):
    url = network.plain_url("/echo")
    for _ in range(REQUESTS_ON_ONE_CONNECTION):
        response = http.get(url, timeout=10)
        assert response.status_code == 200
        assert response.text.startswith(f"host={network.plain_authority()} ")
        assert "close" not in response.headers.get("Connection", "").lower()
    pools = http.get_adapter(url).proxy_manager_for(proxy.url).pools
    opened = sum(pools[key].num_connections for key in pools.keys())
    assert opened == 1, f"{opened} TCP connections opened for {REQUESTS_ON_ONE_CONNECTION} requests"
    if proxy.has_access_log:
        proxy.wait_for_access_log("GET", network.plain_authority(), "200")


# HTTP/1.0 clients (RFC 9112 §9.3, Appendix C.2.2) ------------------------------------------------------------
# ApacheBench's run: enough requests per connection that a proxy closing after each one shows in the figures.
AB_REQUESTS = 200
AB_CONCURRENCY = 4
AB_TIMEOUT_SECONDS = 10


def http10_request(url: str, authority: str, connection: str | None = "keep-alive") -> bytes:
    """An absolute-form HTTP/1.0 request, with `Connection: <connection>` unless None."""
    field = f"Connection: {connection}\r\n" if connection else ""
    return f"GET {url} HTTP/1.0\r\nHost: {authority}\r\n{field}\r\n".encode()


def test_apache_bench_with_keep_alive_completes_every_request_on_kept_connections(proxy, network):
    assert ab_available(), "ab is not installed (Debian: apache2-utils)"
    # A page of fixed length: ab counts a response whose length differs from the first as failed (/echo varies).
    page = network.plain_url("/static/page.html")
    summary = run_ab(proxy.address, page, AB_REQUESTS, AB_CONCURRENCY, AB_TIMEOUT_SECONDS)
    assert summary.exit_code == 0, summary.output
    assert summary.complete == AB_REQUESTS, summary.output
    assert summary.failed == 0 and summary.non2xx == 0, summary.output
    assert summary.keep_alive == AB_REQUESTS, summary.output


def test_http10_keep_alive_is_announced_and_the_connection_serves_again(proxy, network):
    with RawConnection(proxy.address) as client:
        for _ in range(REQUESTS_ON_ONE_CONNECTION):
            client.send(http10_request(network.plain_url("/echo"), network.plain_authority()))
            response = client.read_response()
            assert response.status == 200, response.describe()
            assert response.header("Connection") == "keep-alive", response.describe()
            assert response.header("Content-Length") == str(len(response.body)), response.describe()


def test_http10_without_keep_alive_is_told_close_and_closed(proxy, network):
    with RawConnection(proxy.address) as client:
        client.send(http10_request(network.plain_url("/echo"), network.plain_authority(), connection=None))
        response = client.read_response()
        assert response.status == 200, response.describe()
        assert response.header("Connection") == "close", response.describe()
        assert client.closed_by_peer(), "an HTTP/1.0 connection without keep-alive left open"


def test_http10_keep_alive_with_a_chunked_response_is_closed_after_it(proxy, network):
    origin = ChunkedOrigin().start()
    try:
        url = f"http://origin.test:{origin.port}/chunked"
        with RawConnection(proxy.address) as client:
            client.send(http10_request(url, f"origin.test:{origin.port}"))
            response = client.read_response()
            assert response.status == 200, response.describe()
            # The end of a chunked body is past what HTTP/1.0 can read: only the close can mark it.
            assert response.header("Connection") == "close", response.describe()
            assert client.closed_by_peer(), "an HTTP/1.0 connection left open after a chunked response"
    finally:
        origin.stop()


def test_http10_keep_alive_error_from_the_proxy_is_announced_and_the_connection_serves_again(proxy, network):
    refused = f"origin.test:{network.closed_port}"
    with RawConnection(proxy.address) as client:
        client.send(http10_request(f"http://{refused}/", refused))
        error = client.read_response()
        assert_generated_error(error, 502, {"connection_refused"})
        assert error.header("Connection") == "keep-alive", error.describe()
        client.send(http10_request(network.plain_url("/echo"), network.plain_authority()))
        response = client.read_response()
        assert response.status == 200 and response.header("Connection") == "keep-alive", response.describe()

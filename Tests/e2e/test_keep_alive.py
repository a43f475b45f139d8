"""Persistent client connections (RFC 9112 §9.3): many requests, one TCP connection to the proxy."""

import pytest

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

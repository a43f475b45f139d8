"""Many concurrent keep-alive clients (wrk) all get 2xx answers with no socket errors."""

import pytest

from harness.wrk_load import run_wrk, wrk_available

CONCURRENT_CLIENTS = 200
WRK_THREADS = 2
LOAD_SECONDS = 5
REQUEST_TIMEOUT_SECONDS = 5


@pytest.mark.peers("squid")
def test_two_hundred_concurrent_keep_alive_clients_finish_without_errors(proxy, network):
    assert wrk_available(), "wrk is not installed"
    summary = run_wrk(proxy.url, network.plain_url("/echo"), network.plain_authority(), CONCURRENT_CLIENTS,
                      WRK_THREADS, LOAD_SECONDS, REQUEST_TIMEOUT_SECONDS)
    assert summary.requests >= CONCURRENT_CLIENTS, summary.output
    assert summary.socket_errors == 0, summary.output
    assert summary.non2xx == 0 and summary.status == 0, summary.output
    assert summary.responses == summary.requests, summary.output

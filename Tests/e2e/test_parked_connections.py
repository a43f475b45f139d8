"""Kept-alive client connections left idle between requests: parked with no buffers held (the
`ipdirect_client_connections_parked` gauge), served again when their next request comes, closed when their
own idle timeout passes, and closed at once when the daemon stops."""

import os
import re
import select
import signal
import time

import pytest

from harness.ipdirect_proxy import ConfigAdditions
from harness.raw_http import RawConnection
from test_admin_metrics import value, wait_for

# Enough idle connections that parking and waking them is not a one-off.
IDLE_CONNECTIONS = 40
# Requests each connection sends after it was parked.
LATER_REQUESTS = 2
# client_idle_timeout (seconds) of the instance whose parked connections time out.
SHORT_IDLE_SECONDS = 2


def get(client: RawConnection, url: str, authority: str) -> None:
    client.send(f"GET {url} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
    response = client.read_response()
    assert response.status == 200, response.describe()
    assert response.body.decode().startswith(f"host={authority} "), response.describe()


@pytest.fixture
def own(start_ipdirect):
    return start_ipdirect(ConfigAdditions(admin=True))


@pytest.fixture
def idle_clients(own, network):
    """IDLE_CONNECTIONS connections that each had one request answered and now wait, parked."""
    clients = [RawConnection(own.address) for _ in range(IDLE_CONNECTIONS)]
    try:
        for client in clients:
            get(client, network.plain_url("/echo"), network.plain_authority())
        parked = wait_for(own, lambda s: value(s, "ipdirect_client_connections_parked") == IDLE_CONNECTIONS)
        assert value(parked, "ipdirect_client_connections_parked") == IDLE_CONNECTIONS
        yield clients
    finally:
        for client in clients:
            client.close()


def test_parked_connections_serve_their_next_requests_and_park_again(own, network, idle_clients):
    for _ in range(LATER_REQUESTS):
        for client in idle_clients:
            get(client, network.plain_url("/echo"), network.plain_authority())
    parked = wait_for(own, lambda s: value(s, "ipdirect_client_connections_parked") == IDLE_CONNECTIONS)
    assert value(parked, "ipdirect_client_connections_parked") == IDLE_CONNECTIONS
    assert value(parked, "ipdirect_client_connections_active") == IDLE_CONNECTIONS
    for client in idle_clients:
        client.close()
    closed = wait_for(own, lambda s: value(s, "ipdirect_client_connections_active") == 0)
    assert value(closed, "ipdirect_client_connections_parked") == 0
    assert value(closed, "ipdirect_client_connections_active") == 0


def test_a_pipelined_pair_of_requests_wakes_a_parked_connection(own, network, idle_clients):
    request = f"GET {network.plain_url('/echo')} HTTP/1.1\r\nHost: {network.plain_authority()}\r\n\r\n".encode()
    client = idle_clients[0]
    client.send(request + request)
    for _ in range(2):
        response = client.read_response()
        assert response.status == 200, response.describe()


def test_stopping_the_daemon_closes_parked_connections_at_once(own, idle_clients, start_ipdirect):
    # Stopped on purpose: not an instance that died during the test.
    start_ipdirect.started.remove(own)
    os.kill(own.process.pid, signal.SIGTERM)
    for client in idle_clients:
        assert client.sock.recv(1) == b"", "a parked connection was left open by a stopping daemon"
    own.process.popen.wait(timeout=10)
    closed_idle = re.findall(r"event=draining closed_idle=(\d+)", own.process.stderr_text())
    assert sum(int(count) for count in closed_idle) == IDLE_CONNECTIONS


def closed_by_proxy(client: RawConnection, within_seconds: float) -> bool:
    """True when the proxy closes the connection within the time given, having sent nothing first."""
    readable, _, _ = select.select([client.sock], [], [], within_seconds)
    return bool(readable) and client.sock.recv(1) == b""


def test_each_parked_connection_closes_at_its_own_idle_timeout(start_ipdirect, network):
    own = start_ipdirect(ConfigAdditions(admin=True, proxy_keys={"client_idle_timeout": SHORT_IDLE_SECONDS}))
    clients = [RawConnection(own.address) for _ in range(IDLE_CONNECTIONS)]
    try:
        for client in clients:
            get(client, network.plain_url("/echo"), network.plain_authority())
        wait_for(own, lambda s: value(s, "ipdirect_client_connections_parked") == IDLE_CONNECTIONS)
        # Half of them speak again halfway through the window, which starts theirs over: parked again with
        # later deadlines among the earlier ones still waiting.
        time.sleep(SHORT_IDLE_SECONDS / 2)
        spoke_again = clients[::2]
        stayed_idle = clients[1::2]
        for client in spoke_again:
            get(client, network.plain_url("/echo"), network.plain_authority())
        for client in stayed_idle:
            assert closed_by_proxy(client, SHORT_IDLE_SECONDS), "a parked connection outlived its idle timeout"
        counts = wait_for(own, lambda s: value(s, "ipdirect_client_connections_parked") == len(spoke_again))
        assert value(counts, "ipdirect_client_connections_parked") == len(spoke_again)
        for client in spoke_again:
            assert not closed_by_proxy(client, 0), "a connection that spoke again was closed at the old deadline"
        for client in spoke_again:
            assert closed_by_proxy(client, SHORT_IDLE_SECONDS * 2), "a parked connection outlived its idle timeout"
        closed = wait_for(own, lambda s: value(s, "ipdirect_client_connections_active") == 0)
        assert value(closed, "ipdirect_client_connections_parked") == 0
    finally:
        for client in clients:
            client.close()

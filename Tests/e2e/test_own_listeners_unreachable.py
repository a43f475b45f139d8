"""No request through the proxy reaches the daemon's own listeners (docs/behaviour.md "What it does with a request"):
absolute-form GET and POST, CONNECT and SOCKS5 to the proxy's own port or the admin port are refused with 403
destination_ip_prohibited (SOCKS5: 0x02) and a log line naming the listener, whether `localhost` is pinned in
[hosts] or allow_private_upstreams = true lets a DNS answer or a literal point at loopback. Without this any
proxy client could read the names looked up (/cache) and flush the cache through the proxy."""

import dataclasses
import json
import signal
import time

import pytest
import requests

from harness.access_clients import (SOCKS5_NO_AUTHENTICATION, SOCKS5_NOT_ALLOWED_BY_RULESET, SOCKET_TIMEOUT_SECONDS,
                                    receive_exactly, socks5_connect, socks5_greeting, socks5_reply_code)
from harness.dns_server import SYSTEM_RESOLVED_NAME
from harness.ipdirect_proxy import ADMIN_MARKER, ConfigAdditions
from harness.ports import LOOPBACK
from harness.proxy_status import assert_generated_error
from harness.raw_http import RawConnection, get_request
from harness.resolution_checks import event_lines

RELOAD_WAIT_SECONDS = 10
POLL_SECONDS = 0.05
ADMIN_TIMEOUT_SECONDS = 10
# The field /cache/flush asks for, so only this guard can refuse the flush.
ADMIN_MARKER_LINE = "".join(f"{name}: {value}\r\n" for name, value in ADMIN_MARKER.items())


@pytest.fixture(scope="module")
def network(network):
    """The shared test network with `localhost` pinned in [hosts], as an operator might write it."""
    return dataclasses.replace(network, static_hosts={**network.static_hosts, "localhost": [LOOPBACK]})


@dataclasses.dataclass(frozen=True)
class Scenario:
    """How a client's destination leads to loopback, and the configuration that lets it."""
    host: str
    allow_private_upstreams: bool


SCENARIOS = {
    "localhost pinned in [hosts]": Scenario("localhost", allow_private_upstreams=False),
    "a DNS answer with allow_private_upstreams": Scenario(SYSTEM_RESOLVED_NAME, allow_private_upstreams=True),
    "a literal with allow_private_upstreams": Scenario(LOOPBACK, allow_private_upstreams=True),
}


def start_with_tunnels_to_own_ports(start_ipdirect, network, scenario: Scenario):
    """An instance with its admin listener whose connect_ports include its own ports, so a refusal can only
    come from the own-listener guard. The ports are known once it runs, so they are added by a reload, which
    must keep the set of own listeners too."""
    own = start_ipdirect(ConfigAdditions(admin=True,
                                         access_keys={"allow_private_upstreams": scenario.allow_private_upstreams}))
    text = own.config_path.read_text()
    listed = f"connect_ports = {json.dumps(network.connect_ports)}"
    assert listed in text
    own.config_path.write_text(text.replace(listed, f"connect_ports = {json.dumps(network.connect_ports + [own.port, own.admin_port])}"))
    own.process.popen.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + RELOAD_WAIT_SECONDS
    while not event_lines(own, "reloaded"):
        assert time.monotonic() < deadline, f"no reload:\n{own.stderr_since_mark()[-2000:]}"
        time.sleep(POLL_SECONDS)
    return own


def through(own, request: bytes, method: str = "GET"):
    with RawConnection(own.address) as client:
        client.send(request)
        return client.read_response(method)


def socks5_reply(own, host: str, port: int) -> int:
    with RawConnection(own.address) as client:
        sock = client.sock
        sock.settimeout(SOCKET_TIMEOUT_SECONDS)
        sock.sendall(socks5_greeting(SOCKS5_NO_AUTHENTICATION))
        assert receive_exactly(sock, 2) == bytes([5, SOCKS5_NO_AUTHENTICATION])
        sock.sendall(socks5_connect(host, port))
        return socks5_reply_code(sock)


def cached_names(own) -> set[str]:
    response = requests.get(own.admin_url("/cache"), timeout=ADMIN_TIMEOUT_SECONDS)
    assert response.status_code == 200, response.text
    return {entry["name"] for entry in response.json()["entries"]}


@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_requests_through_the_proxy_never_reach_its_own_listeners(start_ipdirect, network, scenario):
    own = start_with_tunnels_to_own_ports(start_ipdirect, network, scenario)
    # A name looked up through the proxy (answered or refused, it is cached), which /cache would show and
    # /cache/flush would forget.
    through(own, get_request(network.plain_url(name=SYSTEM_RESOLVED_NAME), network.plain_authority(SYSTEM_RESOLVED_NAME),
                             "Connection: close\r\n"))
    names_before = cached_names(own)
    assert SYSTEM_RESOLVED_NAME in names_before

    for role, port in (("admin", own.admin_port), ("proxy", own.port)):
        authority = f"{scenario.host}:{port}"
        listener = f"listener={role} {LOOPBACK}:{port}"
        requests_sent = {
            "GET /cache": (get_request(f"http://{authority}/cache", authority, "Connection: close\r\n"), "GET"),
            "POST /cache/flush": (get_request(f"http://{authority}/cache/flush", authority,
                                              ADMIN_MARKER_LINE + "Content-Length: 0\r\nConnection: close\r\n",
                                              method="POST"), "POST"),
            "CONNECT": (f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode(), "CONNECT"),
        }
        for what, (request, method) in requests_sent.items():
            response = through(own, request, method)
            assert_generated_error(response, 403, {"destination_ip_prohibited"}, mentions=(listener,))
        assert socks5_reply(own, scenario.host, port) == SOCKS5_NOT_ALLOWED_BY_RULESET, f"SOCKS5 to {authority}"
        refusals = [line for line in own.stderr_since_mark().splitlines()
                    if "error=destination_ip_prohibited" in line and listener in line]
        assert len(refusals) == len(requests_sent) + 1, own.stderr_since_mark()[-3000:]

    assert cached_names(own) == names_before, "the cache was flushed through the proxy"


def test_the_admin_listener_still_answers_its_own_clients(start_ipdirect, network):
    own = start_with_tunnels_to_own_ports(start_ipdirect, network, SCENARIOS["localhost pinned in [hosts]"])
    assert requests.get(own.admin_url("/healthz"), timeout=ADMIN_TIMEOUT_SECONDS).status_code == 200
    response = through(own, get_request(network.plain_url(), network.plain_authority(), "Connection: close\r\n"))
    assert response.status == 200, response.describe()

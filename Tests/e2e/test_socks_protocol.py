"""SOCKS5 (RFC 1928) and SOCKS4/4a on the proxy port, byte for byte from raw sockets: malformed messages close
the connection without a reply and without waiting for more, each refusal gets the reply code a client can act
on (docs/behaviour.md, "SOCKS on the same port") and an access-log line, and after every one of them the same daemon
still opens a tunnel for a well-formed request.

Names resolve through an HTTPDNS provider (the json stub) only: `tunnel.socks.test` is published there, and
nothing knows `nowhere.socks.test`.
"""

import os
import socket
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from harness.digest_origin import exchange_through
from harness.ipdirect_proxy import SETTINGS, IpdirectProxy
from harness.network import Network
from harness.nginx_origin import INDEX_TEXT
from harness.ports import LOOPBACK
from harness.raw_http import RawConnection, get_request
from harness.resolution_checks import log_field, start_resolving
from harness.socks_wire import (ADDRESS_TYPE_NOT_SUPPORTED, BIND, COMMAND_NOT_SUPPORTED, CONNECT,
                                CONNECTION_REFUSED, GREETING, GREETING_REPLY, HOST_UNREACHABLE, NOT_ALLOWED,
                                SOCKS4_GRANTED, SOCKS4_REJECTED, SOCKS4_REPLY_BYTES, SOCKS5_VERSION, SUCCEEDED,
                                TTL_EXPIRED, UDP_ASSOCIATE, Socks5Reply, read_exactly, read_until_closed,
                                socks4_request, socks4a_request, socks5_request)

PROVIDER = "json-google"
TUNNEL_NAME = "tunnel.socks.test"
MISSING_NAME = "nowhere.socks.test"
# Bytes sent up a tunnel before the client half-closes; the digest origin sends as many back.
TUNNEL_PAYLOAD_BYTES = 8 * 1024 * 1024
TUNNEL_READ_SECONDS = 30
# Shorter than header_timeout: a proxy that waited for more bytes instead of deciding fails the read.
SOCKET_SECONDS = SETTINGS.header_timeout - 2
# The counting origin is given time to see a connection the proxy should never have made.
NO_CONNECTION_SETTLE_SECONDS = 0.5


@pytest.fixture
def httpdns(provider_setup):
    setup = provider_setup(PROVIDER)
    setup.set_addresses(TUNNEL_NAME, a=(LOOPBACK,))
    return setup


@pytest.fixture
def socks_proxy(httpdns, start_ipdirect, network) -> IpdirectProxy:
    """An ipdirect resolving through the stub only; tunnels may reach nginx's plain port, the closed port, the
    blackhole (whose connects hang) and the digest origin, and nothing else."""
    ports = [network.nginx_http_port, network.closed_port, network.blackhole_port, network.digest_port]
    return start_resolving(start_ipdirect, httpdns, access_keys={"connect_ports": ports})


def connect(proxy: IpdirectProxy) -> socket.socket:
    return socket.create_connection(proxy.address, timeout=SOCKET_SECONDS)


def greeted(proxy: IpdirectProxy) -> socket.socket:
    """A connection whose SOCKS5 greeting (no authentication) has been accepted."""
    sock = connect(proxy)
    sock.sendall(GREETING)
    assert read_exactly(sock, len(GREETING_REPLY)) == GREETING_REPLY
    return sock


def client_line(proxy: IpdirectProxy, sock_port: int, *fragments: str) -> str:
    """The access-log line of the connection from our `sock_port`, which must contain `fragments`."""
    return proxy.wait_for_access_log(f" client={LOOPBACK}:{sock_port} ", *fragments)


def assert_still_serving(proxy: IpdirectProxy, network: Network) -> None:
    """The daemon is alive and a well-formed SOCKS5 CONNECT by name gets a tunnel to nginx."""
    assert proxy.is_running(), proxy.describe()
    authority = network.plain_authority(TUNNEL_NAME)
    with greeted(proxy) as sock:
        sock.sendall(socks5_request(TUNNEL_NAME, network.nginx_http_port))
        assert Socks5Reply.read(sock).code == SUCCEEDED
        tunnel = RawConnection.over(sock)
        tunnel.send(get_request("/", authority, "Connection: close\r\n"))
        response = tunnel.read_response()
    assert (response.status, response.text) == (200, INDEX_TEXT), response.describe()
    proxy.wait_for_access_log(" method=SOCKS5 ", f" target={authority} ", " status=200 ")


def test_a_well_formed_socks5_connect_by_name_opens_a_tunnel_resolved_by_httpdns(socks_proxy, network, httpdns):
    assert_still_serving(socks_proxy, network)
    socks_proxy.wait_for_access_log(" method=SOCKS5 ", f" target={network.plain_authority(TUNNEL_NAME)} ",
                                    f" source={PROVIDER} ")
    assert httpdns.queries(TUNNEL_NAME, "A") == 1


@dataclass(frozen=True)
class Malformed:
    """A message that must close the connection without a reply: `after_greeting` sends it once a SOCKS5
    greeting was accepted, else it is the connection's first message; `half_close` sends the client's FIN
    after it. The access-log line of the connection has the `note`."""
    message: bytes
    after_greeting: bool
    method: str
    note: str
    half_close: bool = False


MALFORMED = {
    # Two methods announced, one sent, then the client's FIN.
    "truncated-greeting-then-close": Malformed(bytes([SOCKS5_VERSION, 2, 0]), False, "SOCKS5",
                                               "client closed during the SOCKS negotiation", half_close=True),
    "socks5-greeting-with-no-methods": Malformed(bytes([SOCKS5_VERSION, 0]), False, "SOCKS5",
                                                 "no authentication methods offered"),
    "socks5-request-with-version-4": Malformed(bytes([4]) + socks5_request(TUNNEL_NAME, 80)[1:], True, "SOCKS5",
                                               "version 4 in a SOCKS5 request"),
    "socks5-name-with-a-space": Malformed(socks5_request("bad name.test", 80), True, "SOCKS5", "host name byte 32"),
    # No NUL within the 255 bytes a name may have: refused there, not buffered to the end.
    "socks4a-name-without-nul-past-300-bytes": Malformed(socks4a_request(b"a" * 300, 80), False, "SOCKS4",
                                                         "longer than 255 bytes"),
}


@pytest.mark.parametrize("case", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_message_closes_the_connection_without_a_reply(socks_proxy, network, case):
    with (greeted(socks_proxy) if case.after_greeting else connect(socks_proxy)) as sock:
        sock.sendall(case.message)
        if case.half_close:
            sock.shutdown(socket.SHUT_WR)
        assert read_until_closed(sock) == b""
        port = sock.getsockname()[1]
    client_line(socks_proxy, port, f" method={case.method} ", case.note)
    assert_still_serving(socks_proxy, network)


def test_an_unknown_address_type_is_answered_0x08_then_closed(socks_proxy, network):
    with greeted(socks_proxy) as sock:
        # ATYP 9, then bytes whose length no one can know.
        sock.sendall(bytes([SOCKS5_VERSION, CONNECT, 0, 9, 127, 0, 0, 1, 0, 80]))
        assert Socks5Reply.read(sock).code == ADDRESS_TYPE_NOT_SUPPORTED
        assert read_until_closed(sock) == b""
        port = sock.getsockname()[1]
    client_line(socks_proxy, port, " method=SOCKS5 ", " status=400 ")
    assert_still_serving(socks_proxy, network)


@dataclass(frozen=True)
class Refusal:
    """A well-formed SOCKS5 request the proxy must refuse with `code`, logging the `status` an HTTP CONNECT
    with the same fate gets."""
    host: str
    port: Callable[[Network], int]
    code: int
    status: int
    command: int = CONNECT


REFUSALS = {
    "bind": Refusal(TUNNEL_NAME, lambda network: network.nginx_http_port, COMMAND_NOT_SUPPORTED, 400, BIND),
    "udp-associate": Refusal(TUNNEL_NAME, lambda network: network.nginx_http_port, COMMAND_NOT_SUPPORTED, 400,
                             UDP_ASSOCIATE),
    "name-that-does-not-resolve": Refusal(MISSING_NAME, lambda network: network.nginx_http_port, HOST_UNREACHABLE,
                                          502),
    "refused-port-on-loopback": Refusal(LOOPBACK, lambda network: network.closed_port, CONNECTION_REFUSED, 502),
    "connect-timeout": Refusal(LOOPBACK, lambda network: network.blackhole_port, TTL_EXPIRED, 504),
}


@pytest.mark.parametrize("case", REFUSALS.values(), ids=REFUSALS.keys())
def test_a_refused_socks5_request_gets_its_reply_code_and_a_log_line(socks_proxy, network, case):
    port = case.port(network)
    with greeted(socks_proxy) as sock:
        sock.sendall(socks5_request(case.host, port, case.command))
        assert Socks5Reply.read(sock).code == case.code
        assert read_until_closed(sock) == b""
    socks_proxy.wait_for_access_log(" method=SOCKS5 ", f" target={case.host}:{port} ", f" status={case.status} ")
    assert_still_serving(socks_proxy, network)


def test_an_unresolvable_name_was_asked_of_httpdns_before_the_refusal(socks_proxy, network, httpdns):
    with greeted(socks_proxy) as sock:
        sock.sendall(socks5_request(MISSING_NAME, network.nginx_http_port))
        assert Socks5Reply.read(sock).code == HOST_UNREACHABLE
    assert httpdns.queries(MISSING_NAME, "A") == 1


@pytest.mark.parametrize("version", ["SOCKS5", "SOCKS4"])
def test_a_port_outside_connect_ports_is_not_allowed_and_reaches_nothing(socks_proxy, network, counting_origin,
                                                                         version):
    assert network.counting_port not in (network.nginx_http_port, network.closed_port, network.blackhole_port,
                                         network.digest_port)
    with (greeted(socks_proxy) if version == "SOCKS5" else connect(socks_proxy)) as sock:
        if version == "SOCKS5":
            sock.sendall(socks5_request(TUNNEL_NAME, network.counting_port))
            assert Socks5Reply.read(sock).code == NOT_ALLOWED
        else:
            sock.sendall(socks4a_request(TUNNEL_NAME.encode() + b"\0", network.counting_port))
            assert read_exactly(sock, SOCKS4_REPLY_BYTES)[1] == SOCKS4_REJECTED
        assert read_until_closed(sock) == b""
    socks_proxy.wait_for_access_log(f" method={version} ", f" target={TUNNEL_NAME}:{network.counting_port} ",
                                    " status=403 ")
    counting_origin.settle(NO_CONNECTION_SETTLE_SECONDS)
    assert counting_origin.connection_count == 0, counting_origin.received()
    assert_still_serving(socks_proxy, network)


SOCKS4_REFUSALS = {
    "name-that-does-not-resolve": (lambda network: socks4a_request(MISSING_NAME.encode() + b"\0",
                                                                   network.nginx_http_port),
                                   lambda network: f"{MISSING_NAME}:{network.nginx_http_port}"),
    "refused-port-on-loopback": (lambda network: socks4_request(LOOPBACK, network.closed_port),
                                 lambda network: f"{LOOPBACK}:{network.closed_port}"),
}


@pytest.mark.parametrize("request_for, target_for", SOCKS4_REFUSALS.values(), ids=SOCKS4_REFUSALS.keys())
def test_a_refused_socks4_request_gets_0x5b_and_a_log_line(socks_proxy, network, request_for, target_for):
    with connect(socks_proxy) as sock:
        sock.sendall(request_for(network))
        reply = read_exactly(sock, SOCKS4_REPLY_BYTES)
        assert (reply[0], reply[1]) == (0, SOCKS4_REJECTED), reply
        assert read_until_closed(sock) == b""
    socks_proxy.wait_for_access_log(" method=SOCKS4 ", f" target={target_for(network)} ", " status=502 ")
    assert_still_serving(socks_proxy, network)


def test_a_socks4a_connect_by_name_is_granted_and_carries_the_request(socks_proxy, network):
    authority = network.plain_authority(TUNNEL_NAME)
    with connect(socks_proxy) as sock:
        sock.sendall(socks4a_request(TUNNEL_NAME.encode() + b"\0", network.nginx_http_port, user=b"someone"))
        reply = read_exactly(sock, SOCKS4_REPLY_BYTES)
        assert (reply[0], reply[1]) == (0, SOCKS4_GRANTED), reply
        tunnel = RawConnection.over(sock)
        tunnel.send(get_request("/", authority, "Connection: close\r\n"))
        response = tunnel.read_response()
    assert (response.status, response.text) == (200, INDEX_TEXT), response.describe()
    socks_proxy.wait_for_access_log(" method=SOCKS4 ", f" target={authority} ", f" source={PROVIDER} ",
                                    " status=200 ")


def test_a_socks5_tunnel_carries_bulk_bytes_both_ways_and_passes_a_half_close_on(socks_proxy, network):
    payload = os.urandom(TUNNEL_PAYLOAD_BYTES)
    with greeted(socks_proxy) as sock:
        sock.sendall(socks5_request(TUNNEL_NAME, network.digest_port))
        assert Socks5Reply.read(sock).code == SUCCEEDED
        sock.settimeout(TUNNEL_READ_SECONDS)
        exchange_through(sock, payload)
    line = socks_proxy.wait_for_access_log(" method=SOCKS5 ", f" target={TUNNEL_NAME}:{network.digest_port} ",
                                           " status=200 ")
    assert int(log_field(line, "bytes_in")) >= len(payload), line
    assert int(log_field(line, "bytes_out")) >= len(payload), line

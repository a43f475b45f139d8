"""With `[access] auth_file` set, a tunnel to a port outside connect_ports is refused only after the login was
accepted (docs/behaviour.md "Authentication and client ACL"): a client without a login gets 407 for every port, so it
cannot learn which ports are open. SOCKS5 asks for the login in its negotiation, before any request."""

import socket

import pytest

from harness.access_clients import (BASIC_CHALLENGE, SOCKET_TIMEOUT_SECONDS, SOCKS5_NO_ACCEPTABLE_METHODS,
                                    SOCKS5_NO_AUTHENTICATION, SOCKS5_NOT_ALLOWED_BY_RULESET,
                                    SOCKS5_USERNAME_PASSWORD, receive_exactly, socks5_connect, socks5_greeting,
                                    socks5_login, socks5_reply_code)
from harness.ipdirect_proxy import ConfigAdditions
from harness.proxy_status import assert_generated_error
from harness.raw_http import RawConnection
from test_proxy_authentication import ALICE, ALICE_PASSWORD, WRONG_PASSWORD, alice, write_users

# SMTP: never in the tests' connect_ports.
CLOSED_PORT = 25


@pytest.fixture
def guarded(start_ipdirect, tmp_path):
    users = tmp_path / "htpasswd"
    write_users(users, {ALICE: ALICE_PASSWORD})
    return start_ipdirect(ConfigAdditions(access_keys={"auth_file": str(users)}))


def connect_through(own, authority: str, extra_headers: str = ""):
    with RawConnection(own.address) as client:
        client.send(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n{extra_headers}\r\n".encode())
        return client.read_response("CONNECT")


@pytest.mark.parametrize("credentials", ["", alice(WRONG_PASSWORD)], ids=["no login", "a wrong login"])
def test_a_connect_to_a_closed_port_is_asked_for_the_login_first(guarded, credentials):
    response = connect_through(guarded, f"a.test:{CLOSED_PORT}", credentials)
    assert_generated_error(response, 407, {"http_request_denied"})
    assert response.header("Proxy-Authenticate") == BASIC_CHALLENGE
    assert "connect_ports" not in response.text, response.describe()


def test_a_connect_to_a_closed_port_is_refused_once_the_login_is_accepted(guarded):
    response = connect_through(guarded, f"a.test:{CLOSED_PORT}", alice())
    assert_generated_error(response, 403, {"http_request_denied"}, mentions=("access.connect_ports",))


def test_a_socks5_client_without_a_login_never_gets_to_name_a_port(guarded):
    with socket.create_connection(guarded.address, timeout=SOCKET_TIMEOUT_SECONDS) as client:
        client.sendall(socks5_greeting(SOCKS5_NO_AUTHENTICATION) + socks5_connect("a.test", CLOSED_PORT))
        assert receive_exactly(client, 2) == bytes([5, SOCKS5_NO_ACCEPTABLE_METHODS])


def test_a_socks5_connect_to_a_closed_port_is_refused_after_the_login(guarded):
    with socket.create_connection(guarded.address, timeout=SOCKET_TIMEOUT_SECONDS) as client:
        client.sendall(socks5_greeting(SOCKS5_USERNAME_PASSWORD))
        assert receive_exactly(client, 2) == bytes([5, SOCKS5_USERNAME_PASSWORD])
        client.sendall(socks5_login(ALICE, ALICE_PASSWORD))
        assert receive_exactly(client, 2) == bytes([1, 0])
        client.sendall(socks5_connect("a.test", CLOSED_PORT))
        assert socks5_reply_code(client) == SOCKS5_NOT_ALLOWED_BY_RULESET

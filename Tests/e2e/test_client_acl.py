"""`[access] clients` (docs/behaviour.md "Authentication and client ACL"): ipdirect listens on 127.0.0.1 and serves only
127.0.0.2; clients bound to either source address show both sides over HTTP, SOCKS5 and the PAC file."""

import pytest

from harness.access_clients import (SOCKS5_NO_AUTHENTICATION, SOCKS5_NOT_ALLOWED_BY_RULESET, SOCKS5_SUCCEEDED,
                                    SOCKS5_USERNAME_PASSWORD, closed_by_peer, connect_from, curl, curl_status,
                                    fetch_from, receive_exactly, socks5_connect, socks5_greeting, socks5_login,
                                    socks5_reply_code)
from harness.ipdirect_proxy import ConfigAdditions
from harness.raw_http import RawConnection, get_request
from harness.resolution_checks import log_field
from test_proxy_authentication import write_users

INSIDE = "127.0.0.2"
OUTSIDE = "127.0.0.1"
PAC_TYPE = "application/x-ns-proxy-autoconfig"


@pytest.fixture
def narrowed(start_ipdirect):
    """An ipdirect of this test listening on 127.0.0.1 that serves the client 127.0.0.2 alone."""
    return start_ipdirect(ConfigAdditions(access_keys={"clients": [f"{INSIDE}/32"]}))


def socks5_connect_from(source: str, own, host: str, port: int) -> int:
    """The SOCKS5 reply code a client at `source` gets for a CONNECT without authentication."""
    with connect_from(source, own.address) as client:
        client.sendall(socks5_greeting(SOCKS5_NO_AUTHENTICATION))
        assert receive_exactly(client, 2) == bytes([5, SOCKS5_NO_AUTHENTICATION])
        client.sendall(socks5_connect(host, port))
        code = socks5_reply_code(client)
        if code != SOCKS5_SUCCEEDED:
            assert closed_by_peer(client), "the connection stayed open after a refusal"
        return code


def test_http_from_outside_the_clients_gets_403_and_a_close_and_from_inside_is_served(narrowed, network):
    url, authority = network.plain_url(), network.plain_authority()
    with RawConnection.over(connect_from(OUTSIDE, narrowed.address)) as client:
        client.send(get_request(url, authority))
        refused = client.read_response()
        assert refused.status == 403, refused.describe()
        assert (refused.header("Proxy-Status") or "").endswith("error=http_request_denied; details=\"this client "
                                                               "address is not allowed to use the proxy "
                                                               "(access.clients)\""), refused.describe()
        assert client.closed_by_peer(), "the connection of a refused client stayed open"
    assert fetch_from(INSIDE, narrowed.address, url, authority).status == 200

    outside = curl("--interface", OUTSIDE, "--proxy", narrowed.url, url)
    assert curl_status(outside) == 403, outside.stdout + outside.stderr
    inside = curl("--interface", INSIDE, "--proxy", narrowed.url, url)
    assert curl_status(inside) == 200 and inside.stdout.startswith("plain origin\n"), inside.stdout + inside.stderr

    refusal = narrowed.wait_for_access_log(f"client={OUTSIDE}:", "status=403")
    assert log_field(refusal, "method") == "GET", refusal
    narrowed.wait_for_access_log(f"client={INSIDE}:", "status=200")
    events = [line for line in narrowed.stderr_since_mark().splitlines() if f"client={OUTSIDE}:" in line]
    assert events and all("status=403 error=http_request_denied" in line for line in events), \
        narrowed.stderr_since_mark()


def test_socks5_from_outside_the_clients_gets_reply_0x02_and_from_inside_a_tunnel(narrowed, network):
    port = network.nginx_https_port
    assert socks5_connect_from(OUTSIDE, narrowed, "a.test", port) == SOCKS5_NOT_ALLOWED_BY_RULESET
    assert socks5_connect_from(INSIDE, narrowed, "a.test", port) == SOCKS5_SUCCEEDED
    refusal = narrowed.wait_for_access_log(f"client={OUTSIDE}:", "method=SOCKS5")
    assert log_field(refusal, "status") == "403", refusal
    assert any(f"client={OUTSIDE}:" in line and "error=http_request_denied" in line
               for line in narrowed.stderr_since_mark().splitlines()), narrowed.stderr_since_mark()


def test_the_pac_file_is_refused_outside_the_clients_and_served_inside(narrowed):
    pac_url = f"{narrowed.url}/proxy.pac"
    outside = curl("--interface", OUTSIDE, pac_url)
    assert curl_status(outside) == 403, outside.stdout + outside.stderr
    assert "FindProxyForURL" not in outside.stdout
    inside = curl("--interface", INSIDE, "--dump-header", "-", pac_url)
    assert curl_status(inside) == 200, inside.stdout + inside.stderr
    assert f"PROXY {narrowed.host}:{narrowed.port}" in inside.stdout, inside.stdout
    assert f"\nContent-Type: {PAC_TYPE}\n" in inside.stdout, inside.stdout
    narrowed.wait_for_access_log(f"client={OUTSIDE}:", "status=403", "(access.clients)")
    narrowed.wait_for_access_log(f"client={INSIDE}:", "status=200")


def test_a_socks5_client_outside_the_clients_never_has_a_password_checked(start_ipdirect, tmp_path):
    """With logins on, a client outside the list that can only offer username/password is refused unchecked, so
    SOCKS5 cannot tell it whether a password is right (over HTTP it gets 403 before any check)."""
    users = tmp_path / "htpasswd"
    write_users(users, {"alice": "right-password"})
    own = start_ipdirect(ConfigAdditions(access_keys={"clients": [f"{INSIDE}/32"], "auth_file": str(users)}))
    for password in ("right-password", "wrong-password"):
        with connect_from(OUTSIDE, own.address) as client:
            client.sendall(socks5_greeting(SOCKS5_USERNAME_PASSWORD))
            assert receive_exactly(client, 2) == bytes([5, SOCKS5_USERNAME_PASSWORD])
            client.sendall(socks5_login("alice", password))
            assert receive_exactly(client, 2) == bytes([1, 1]), "a login from outside the clients was not refused"
            assert closed_by_peer(client), "the connection stayed open after a refusal"
    own.wait_for_access_log(f"client={OUTSIDE}:", "method=SOCKS5", "status=403")
    events = own.stderr_since_mark()
    assert "auth_failed" not in events, events
    assert "right-password" not in events and "wrong-password" not in events, events

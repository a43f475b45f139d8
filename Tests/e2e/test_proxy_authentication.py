"""Logins against `[access] auth_file` (docs/behaviour.md "Authentication and client ACL"): Basic proxy authentication
over HTTP and CONNECT, SOCKS5 username/password, SOCKS4a refused, no password in any log, one crypt(3) call for
repeated right logins, SIGHUP reading a changed file, and the slow-down after repeated failures."""

import base64
import http.client
import os
import signal
import socket
import threading
import time
from pathlib import Path

import pytest
import requests

from harness.access_clients import (BASIC_CHALLENGE, SOCKET_TIMEOUT_SECONDS, SOCKS4_REJECTED,
                                    SOCKS5_NO_ACCEPTABLE_METHODS, SOCKS5_NO_AUTHENTICATION, SOCKS5_SUCCEEDED,
                                    SOCKS5_USERNAME_PASSWORD, basic_credentials, closed_by_peer, curl, curl_status,
                                    fetch_from, proxy_authorization, receive_exactly, socks4a_connect,
                                    socks5_connect, socks5_greeting, socks5_login, socks5_reply_code)
from harness.header_echo_origin import HeaderEchoOrigin
from harness.ipdirect_proxy import ConfigAdditions
from harness.ports import LOOPBACK
from harness.raw_http import RawConnection, get_request
from harness.resolution_checks import event_lines, log_field
from test_access_check import htpasswd
from test_admin_metrics import scrape, value, wait_for

ALICE, ALICE_PASSWORD = "alice", "alice-right-8Jq2v"
BOB, BOB_PASSWORD = "bob", "bob-right-W7m3k"
WRONG_PASSWORD = "alice-wrong-Zp41x"
# Requests on one keep-alive connection with the same login: the first costs a crypt(3) call, the rest none.
CACHED_LOGINS = 1000
# First requests sent at once with the same login, as a browser opens its connections.
RACING_CONNECTIONS = 8
# How long an event line may take to show up, a SIGHUP reload's included.
EVENT_WAIT_SECONDS = 10
LOG_POLL_SECONDS = 0.05
# docs/behaviour.md: failures allowed within a minute before the next one holds the client back, and the first hold.
ALLOWED_FAILURES = 5
FIRST_HOLD_MS = 10_000
# A client address of its own for the slow-down test, so its hold concerns no other request.
GUESSING_CLIENT = "127.0.0.3"
# A user name far longer than a log line may be, whose Basic credentials still fit in a request head.
LONG_USER_BYTES = 20_000
# The longest log line that user name may produce: a bounded quote of it plus the line's own fields.
MAX_LOG_LINE_BYTES = 600


@pytest.fixture(scope="module")
def header_echo():
    origin = HeaderEchoOrigin().start()
    yield origin
    origin.stop()


def write_users(path: Path, users: dict[str, str]) -> None:
    """Replaces `path` at once with a bcrypt htpasswd file of `users`, as an editor that renames would."""
    draft = path.with_name(path.name + ".draft")
    draft.unlink(missing_ok=True)
    for user, password in users.items():
        htpasswd(draft, "-B", str(draft), user, password)
    os.replace(draft, path)


@pytest.fixture
def guarded(start_ipdirect, tmp_path):
    """An ipdirect of this test whose auth_file lists alice, with its admin listener for /metrics."""
    users = tmp_path / "htpasswd"
    write_users(users, {ALICE: ALICE_PASSWORD})
    return start_ipdirect(ConfigAdditions(admin=True, access_keys={"auth_file": str(users)}))


def fetch(own, url: str, authority: str, extra_headers: str = "", source: str = LOOPBACK):
    return fetch_from(source, own.address, url, authority, extra_headers)


def alice(password: str = ALICE_PASSWORD) -> str:
    return proxy_authorization(ALICE, password)


def https_page_through(own, network, certificates, proxy_arguments: list[str]):
    """curl fetching a.test from the HTTPS origin through `own`, the TLS being curl's own."""
    return curl(*proxy_arguments, "--cacert", str(certificates.ca_file), f"https://{network.tls_authority('a.test')}/")


def wait_for_event(own, event: str, *fragments: str) -> str:
    deadline = time.monotonic() + EVENT_WAIT_SECONDS
    while True:
        for line in event_lines(own, event):
            if all(fragment in line for fragment in fragments):
                return line
        if time.monotonic() >= deadline:
            raise AssertionError(f"no event={event} line with {fragments!r}:\n{own.stderr_since_mark()}")
        time.sleep(LOG_POLL_SECONDS)


# HTTP -------------------------------------------------------------------------------------------------------
def test_a_request_without_credentials_gets_407_with_the_challenge_and_may_answer_it_on_the_same_connection(
        guarded, network):
    with RawConnection(guarded.address, timeout=SOCKET_TIMEOUT_SECONDS) as client:
        client.send(get_request(network.plain_url(), network.plain_authority()))
        challenged = client.read_response()
        assert challenged.status == 407, challenged.describe()
        assert challenged.header_values("Proxy-Authenticate") == [BASIC_CHALLENGE], challenged.describe()
        client.send(get_request(network.plain_url(), network.plain_authority(), alice()))
        answered = client.read_response()
        assert answered.status == 200 and answered.text == "plain origin\n", answered.describe()


def test_curl_and_requests_get_407_for_a_wrong_password_or_user_and_200_for_the_right_one(guarded, network):
    url = network.plain_url()
    wrong = curl("--proxy", guarded.url, "--proxy-user", f"{ALICE}:{WRONG_PASSWORD}", url)
    assert curl_status(wrong) == 407, wrong.stdout + wrong.stderr
    unknown = curl("--proxy", guarded.url, "--proxy-user", f"mallory:{ALICE_PASSWORD}", url)
    assert curl_status(unknown) == 407, unknown.stdout + unknown.stderr
    right = curl("--proxy", guarded.url, "--proxy-user", f"{ALICE}:{ALICE_PASSWORD}", url)
    assert curl_status(right) == 200 and right.stdout.startswith("plain origin\n"), right.stdout + right.stderr

    session = requests.Session()
    session.trust_env = False
    for password, status in ((WRONG_PASSWORD, 407), (ALICE_PASSWORD, 200)):
        login_url = f"http://{ALICE}:{password}@{LOOPBACK}:{guarded.port}"
        response = session.get(url, proxies={"http": login_url}, timeout=SOCKET_TIMEOUT_SECONDS)
        assert response.status_code == status, response.text
    session.close()
    reasons = {log_field(line, "reason") for line in event_lines(guarded, "auth_failed")}
    assert reasons == {"wrong_password", "unknown_user"}, guarded.stderr_since_mark()


@pytest.mark.parametrize("fields", [
    pytest.param("Proxy-Authorization: Digest username=\"alice\"\r\n", id="not-basic"),
    pytest.param("Proxy-Authorization: Basic not*base64\r\n", id="not-base64"),
    pytest.param(f"Proxy-Authorization: Basic {base64.b64encode(ALICE_PASSWORD.encode()).decode()}\r\n",
                 id="no-colon"),
    pytest.param(proxy_authorization(ALICE, ALICE_PASSWORD) * 2, id="two-fields"),
])
def test_unusable_credentials_get_407_even_when_they_hold_the_right_password(guarded, network, fields):
    response = fetch(guarded, network.plain_url(), network.plain_authority(), fields)
    assert response.status == 407, response.describe()
    assert response.header_values("Proxy-Authenticate") == [BASIC_CHALLENGE], response.describe()


def test_a_20_kilobyte_user_name_is_logged_as_a_short_prefix(guarded, network):
    user = "m" * LONG_USER_BYTES
    response = fetch(guarded, network.plain_url(), network.plain_authority(),
                     proxy_authorization(user, WRONG_PASSWORD))
    assert response.status == 407, response.describe()
    wait_for_event(guarded, "auth_failed", "reason=unknown_user", f"…({LONG_USER_BYTES} bytes)")
    guarded.wait_for_access_log(network.plain_authority(), "status=407")
    lines = guarded.stderr_since_mark().splitlines() + guarded.access_log_since_mark().splitlines()
    long_lines = [line for line in lines if len(line.encode()) > MAX_LOG_LINE_BYTES]
    assert not long_lines, f"{len(long_lines)} log lines over {MAX_LOG_LINE_BYTES} bytes, the first " \
                           f"{len(long_lines[0].encode())} bytes long: {long_lines[0][:300]}..."


def test_a_password_with_a_colon_and_non_ascii_letters_is_read_as_utf8(start_ipdirect, tmp_path, network):
    users = tmp_path / "htpasswd"
    password = "pa:ss-wört-ß"
    write_users(users, {"carol": password})
    own = start_ipdirect(ConfigAdditions(access_keys={"auth_file": str(users)}))
    assert fetch(own, network.plain_url(), network.plain_authority(),
                 proxy_authorization("carol", password)).status == 200
    right = curl("--proxy", own.url, "--proxy-user", f"carol:{password}", network.plain_url())
    assert curl_status(right) == 200, right.stdout + right.stderr


def test_the_origin_never_sees_proxy_authorization_but_gets_the_clients_own_authorization(guarded, header_echo):
    authority = f"origin.test:{header_echo.port}"
    origin_login = "Authorization: Basic b3JpZ2luLXVzZXI6b3JpZ2luLXNlY3JldA==\r\n"
    response = fetch(guarded, f"http://{authority}/headers", authority, alice() + origin_login)
    assert response.status == 200, response.describe()
    received = response.text.lower()
    assert received.startswith("get /headers http/1.1\r\n"), response.text
    assert "proxy-authorization" not in received and ALICE_PASSWORD.lower() not in received, response.text
    assert origin_login.lower() in received, response.text


def test_connect_without_credentials_gets_407_and_with_them_a_tunnel(guarded, network):
    authority = network.tls_authority("a.test")
    connect = f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n"
    with RawConnection(guarded.address, timeout=SOCKET_TIMEOUT_SECONDS) as client:
        client.send(f"{connect}\r\n".encode())
        refused = client.read_response("CONNECT")
        assert refused.status == 407, refused.describe()
        assert refused.header_values("Proxy-Authenticate") == [BASIC_CHALLENGE], refused.describe()
        # As after any refused CONNECT: what the client sent next may already be tunnel bytes.
        assert client.closed_by_peer(), "the connection of a refused CONNECT stayed open"
    with RawConnection(guarded.address, timeout=SOCKET_TIMEOUT_SECONDS) as client:
        client.send(f"{connect}{alice()}\r\n".encode())
        established = client.read_response("CONNECT")
        assert established.status == 200, established.describe()
    guarded.wait_for_access_log("method=CONNECT", f"target={authority}", "status=200", f"user={ALICE}")


def test_the_pac_file_is_served_without_a_login(guarded):
    with RawConnection(guarded.address, timeout=SOCKET_TIMEOUT_SECONDS) as client:
        client.send(f"GET /proxy.pac HTTP/1.1\r\nHost: {LOOPBACK}:{guarded.port}\r\n\r\n".encode())
        response = client.read_response()
    assert response.status == 200 and "FindProxyForURL" in response.text, response.describe()


def test_curl_fetches_an_https_page_through_connect_with_credentials_and_fails_without(guarded, network,
                                                                                       certificates):
    with_login = https_page_through(guarded, network, certificates,
                                    ["--proxy", guarded.url, "--proxy-user", f"{ALICE}:{ALICE_PASSWORD}"])
    assert with_login.returncode == 0 and with_login.stdout.startswith("vhost=a.test sni=a.test "), \
        with_login.stdout + with_login.stderr
    without = https_page_through(guarded, network, certificates, ["--proxy", guarded.url])
    assert without.returncode != 0 and "407" in without.stderr, without.stdout + without.stderr


# SOCKS ------------------------------------------------------------------------------------------------------
def test_curl_over_socks5h_gets_the_page_with_the_right_login_and_fails_with_a_wrong_one(guarded, network,
                                                                                         certificates):
    right = https_page_through(guarded, network, certificates,
                               ["--proxy", f"socks5h://{ALICE}:{ALICE_PASSWORD}@{LOOPBACK}:{guarded.port}"])
    assert right.returncode == 0 and right.stdout.startswith("vhost=a.test sni=a.test "), right.stdout + right.stderr
    wrong = https_page_through(guarded, network, certificates,
                               ["--proxy", f"socks5h://{ALICE}:{WRONG_PASSWORD}@{LOOPBACK}:{guarded.port}"])
    assert wrong.returncode != 0, wrong.stdout + wrong.stderr
    failure = wait_for_event(guarded, "auth_failed", f'user="{ALICE}"', "reason=wrong_password")
    assert log_field(failure, "client") == LOOPBACK, failure
    guarded.wait_for_access_log("method=SOCKS5", f"target={network.tls_authority('a.test')}", "status=200",
                                f"user={ALICE}")


def test_a_refused_socks5_login_gets_status_1_and_a_close(guarded, network):
    with socket.create_connection(guarded.address, timeout=SOCKET_TIMEOUT_SECONDS) as client:
        client.sendall(socks5_greeting(SOCKS5_USERNAME_PASSWORD))
        assert receive_exactly(client, 2) == bytes([5, SOCKS5_USERNAME_PASSWORD])
        client.sendall(socks5_login(ALICE, WRONG_PASSWORD))
        assert receive_exactly(client, 2) == bytes([1, 1])
        assert closed_by_peer(client)


def test_a_socks5_client_offering_only_no_authentication_gets_no_acceptable_methods(guarded):
    with socket.create_connection(guarded.address, timeout=SOCKET_TIMEOUT_SECONDS) as client:
        client.sendall(socks5_greeting(SOCKS5_NO_AUTHENTICATION))
        assert receive_exactly(client, 2) == bytes([5, SOCKS5_NO_ACCEPTABLE_METHODS])
        assert closed_by_peer(client)


def test_socks4a_is_refused_with_0x5b_while_auth_file_is_set(guarded, network):
    with socket.create_connection(guarded.address, timeout=SOCKET_TIMEOUT_SECONDS) as client:
        client.sendall(socks4a_connect("a.test", network.nginx_https_port))
        reply = receive_exactly(client, 8)
        assert len(reply) == 8 and reply[:2] == bytes([0, SOCKS4_REJECTED]), reply
        assert closed_by_peer(client)


def test_a_raw_socks5_login_opens_a_tunnel(guarded, network):
    with socket.create_connection(guarded.address, timeout=SOCKET_TIMEOUT_SECONDS) as client:
        client.sendall(socks5_greeting(SOCKS5_NO_AUTHENTICATION, SOCKS5_USERNAME_PASSWORD))
        assert receive_exactly(client, 2) == bytes([5, SOCKS5_USERNAME_PASSWORD])
        client.sendall(socks5_login(ALICE, ALICE_PASSWORD))
        assert receive_exactly(client, 2) == bytes([1, 0])
        client.sendall(socks5_connect("a.test", network.nginx_https_port))
        assert socks5_reply_code(client) == SOCKS5_SUCCEEDED


# Logs -------------------------------------------------------------------------------------------------------
def test_no_log_holds_a_password_and_accepted_requests_name_their_user(guarded, network, certificates,
                                                                       header_echo):
    # Every way a password reaches the proxy, right and wrong, then the whole of each log is read.
    url, authority = network.plain_url(), network.plain_authority()
    assert fetch(guarded, url, authority).status == 407
    assert fetch(guarded, url, authority, alice(WRONG_PASSWORD)).status == 407
    assert fetch(guarded, url, authority, alice()).status == 200
    echo_authority = f"origin.test:{header_echo.port}"
    assert fetch(guarded, f"http://{echo_authority}/", echo_authority, alice()).status == 200
    for password in (ALICE_PASSWORD, WRONG_PASSWORD):
        https_page_through(guarded, network, certificates,
                           ["--proxy", guarded.url, "--proxy-user", f"{ALICE}:{password}"])
        https_page_through(guarded, network, certificates,
                           ["--proxy", f"socks5h://{ALICE}:{password}@{LOOPBACK}:{guarded.port}"])
    guarded.wait_for_access_log("method=SOCKS5", "status=200", f"user={ALICE}")
    guarded.wait_for_access_log("method=CONNECT", "status=200", f"user={ALICE}")
    guarded.wait_for_access_log(f"target={echo_authority}", "status=200", f"user={ALICE}")
    wait_for_event(guarded, "auth_failed", "reason=wrong_password")

    logs = {"access log": guarded.process.stdout_text(), "event log": guarded.process.stderr_text()}
    # The passwords, and the base64 of the credentials that carry them.
    secrets = [ALICE_PASSWORD, WRONG_PASSWORD,
               *(basic_credentials(ALICE, password).split()[1] for password in (ALICE_PASSWORD, WRONG_PASSWORD))]
    for name, text in logs.items():
        for secret in secrets:
            assert secret not in text, f"{secret!r} in the {name}:\n{text}"
    for line in logs["access log"].splitlines():
        if log_field(line, "status") == "200":
            assert log_field(line, "user") == ALICE, line
        if log_field(line, "status") == "407":
            assert log_field(line, "user") == "-", line


# The login cache --------------------------------------------------------------------------------------------
def test_a_thousand_keep_alive_requests_with_one_login_cost_one_crypt_call(guarded, network):
    connection = http.client.HTTPConnection(LOOPBACK, guarded.port, timeout=SOCKET_TIMEOUT_SECONDS)
    login = {"Proxy-Authorization": basic_credentials(ALICE, ALICE_PASSWORD)}
    statuses = []
    try:
        for _ in range(CACHED_LOGINS):
            connection.request("GET", network.plain_url(), headers=login)
            response = connection.getresponse()
            response.read()
            statuses.append(response.status)
    finally:
        connection.close()
    assert statuses == [200] * CACHED_LOGINS, {status: statuses.count(status) for status in set(statuses)}
    samples = wait_for(guarded, lambda s: value(s, "ipdirect_auth_cache_hits_total") >= CACHED_LOGINS - 1)
    assert value(samples, "ipdirect_auth_verifications_total") == 1
    assert value(samples, "ipdirect_auth_cache_hits_total") >= CACHED_LOGINS - 1


def test_the_same_login_racing_on_several_connections_costs_one_crypt_call(guarded, network):
    barrier = threading.Barrier(RACING_CONNECTIONS, timeout=SOCKET_TIMEOUT_SECONDS)
    statuses = []

    def first_request():
        barrier.wait()
        statuses.append(fetch(guarded, network.plain_url(), network.plain_authority(), alice()).status)

    racers = [threading.Thread(target=first_request) for _ in range(RACING_CONNECTIONS)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(timeout=2 * SOCKET_TIMEOUT_SECONDS)
    assert statuses == [200] * RACING_CONNECTIONS, statuses
    samples = scrape(guarded)
    assert value(samples, "ipdirect_auth_verifications_total") == 1
    assert value(samples, "ipdirect_auth_cache_hits_total") == RACING_CONNECTIONS - 1


# Reload -----------------------------------------------------------------------------------------------------
def test_sighup_with_a_changed_auth_file_lets_the_new_user_in_and_keeps_the_removed_one_out(guarded, network):
    url, authority = network.plain_url(), network.plain_authority()
    bob = proxy_authorization(BOB, BOB_PASSWORD)
    # alice's login is cached before the reload: the changed file must empty the cache.
    assert fetch(guarded, url, authority, alice()).status == 200
    assert fetch(guarded, url, authority, bob).status == 407

    write_users(Path(guarded.additions.access_keys["auth_file"]), {BOB: BOB_PASSWORD})
    guarded.process.popen.send_signal(signal.SIGHUP)
    loaded = wait_for_event(guarded, "auth_file_loaded", "changed=true")
    assert log_field(loaded, "users") == "1", loaded

    assert fetch(guarded, url, authority, bob).status == 200
    refused = fetch(guarded, url, authority, alice())
    assert refused.status == 407, refused.describe()
    wait_for_event(guarded, "auth_failed", f'user="{ALICE}"', "reason=unknown_user")


def test_sighup_with_an_unusable_auth_file_keeps_the_running_users(guarded, network):
    url, authority = network.plain_url(), network.plain_authority()
    users = Path(guarded.additions.access_keys["auth_file"])
    draft = users.with_name("md5-htpasswd")
    htpasswd(draft, "-m", str(draft), BOB, BOB_PASSWORD)
    md5_hash = draft.read_text().split(":", 1)[1].strip()
    os.replace(draft, users)
    guarded.process.popen.send_signal(signal.SIGHUP)
    rejected = wait_for_event(guarded, "auth_file_rejected", "line=1 ")
    assert "$apr1$" in rejected, rejected
    assert md5_hash not in guarded.stderr_since_mark() and BOB_PASSWORD not in guarded.stderr_since_mark()
    wait_for_event(guarded, "auth_file_rejected", "problems=1 ")

    assert fetch(guarded, url, authority, alice()).status == 200
    assert fetch(guarded, url, authority, proxy_authorization(BOB, BOB_PASSWORD)).status == 407


# The slow-down ----------------------------------------------------------------------------------------------
def test_repeated_wrong_passwords_hold_the_client_back_and_then_its_right_password_is_refused_unchecked(
        guarded, network):
    url, authority = network.plain_url(), network.plain_authority()

    def from_guessing_client(login: str) -> int:
        return fetch(guarded, url, authority, login, source=GUESSING_CLIENT).status

    for _ in range(ALLOWED_FAILURES):
        assert from_guessing_client(alice(WRONG_PASSWORD)) == 407
    # A few mistakes pass: the right password is still checked and accepted.
    assert from_guessing_client(alice()) == 200
    assert not event_lines(guarded, "auth_held_back"), guarded.stderr_since_mark()

    assert from_guessing_client(alice(WRONG_PASSWORD)) == 407
    held = wait_for_event(guarded, "auth_held_back", f"client={GUESSING_CLIENT} ")
    assert log_field(held, "hold_ms") == str(FIRST_HOLD_MS), held
    before = scrape(guarded)
    started = time.monotonic()
    assert from_guessing_client(alice()) == 407
    assert time.monotonic() - started < FIRST_HOLD_MS / 1000, "the refusal waited for the hold to end"
    after = wait_for(guarded, lambda s: value(s, "ipdirect_auth_failures_total", reason="held_back") >= 1)
    assert value(after, "ipdirect_auth_failures_total", reason="held_back") == 1
    # Refused before the password was looked at: neither crypt(3) nor the cache of right logins was asked.
    for counter in ("ipdirect_auth_verifications_total", "ipdirect_auth_cache_hits_total"):
        assert value(after, counter) == value(before, counter), counter
    # The hold is the guessing client's alone.
    assert fetch(guarded, url, authority, alice()).status == 200

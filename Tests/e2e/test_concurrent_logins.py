"""Logins sent at once (docs/behaviour.md "Authentication and client ACL"): a burst of guesses from one address, over
HTTP and SOCKS5, meets the failed-login slow-down where the same logins one at a time would, with the right password
last; a right login from another address is served during such a burst after at most a check or two; and a user
the file does not list is refused in about the time a wrong password for a listed user takes."""

import socket
import statistics
import time

import pytest

from harness.access_clients import (SOCKET_TIMEOUT_SECONDS, SOCKS5_USERNAME_PASSWORD, connect_from,
                                    proxy_authorization, receive_exactly, socks5_greeting, socks5_login)
from harness.ipdirect_proxy import ConfigAdditions
from harness.raw_http import RawConnection, get_request
from test_access_check import htpasswd
from test_admin_metrics import scrape, value
from test_proxy_authentication import ALICE, ALICE_PASSWORD, ALLOWED_FAILURES, BOB, BOB_PASSWORD, alice, fetch

# The probe that found the hole: 29 wrong logins and then the right one, each on a connection of its own.
HTTP_BURST_GUESSES = 29
SOCKS5_BURST_GUESSES = 19
# One address per test, so no hold of one test concerns another.
HTTP_GUESSER = "127.0.0.4"
SOCKS5_GUESSER = "127.0.0.5"
SLOW_HASH_GUESSER = "127.0.0.6"
HONEST_CLIENT = "127.0.0.7"
# bcrypt cost 12: about a quarter of a second a check here, so a whole burst is read and queued while its first
# login is still being checked, and a login queued behind a burst shows.
SLOW_BCRYPT_COST = "12"
# The pause between the wrong logins of a burst and the right one: long enough for the proxy to have read every
# wrong one (they reach different workers, which read them in no fixed order), far shorter than one check.
RIGHT_LOGIN_AFTER_SECONDS = 0.1
SLOW_HASH_BURST = 64
# Logins timed per user in the timing test, each from an address of its own so that no hold cuts them short.
TIMING_SAMPLES = 9
TIMING_SOURCES = [f"127.0.8.{index}" for index in range(1, 2 * TIMING_SAMPLES + 1)]
# bcrypt cost 10: tens of milliseconds a check, well above the time a refusal without a check takes.
TIMING_BCRYPT_COST = "10"
# How far apart the two medians may be: the same work, measured on a busy machine.
TIMING_FACTOR = 2.0
# RFC 1929 §2: status 0 is success.
SOCKS5_LOGIN_ACCEPTED = 0


@pytest.fixture
def guarded(start_ipdirect, tmp_path):
    """An ipdirect whose auth_file lists alice with a cost-12 bcrypt hash, with its admin listener for /metrics."""
    return start_with_alice_and_bob(start_ipdirect, tmp_path, SLOW_BCRYPT_COST)


def start_with_alice_and_bob(start_ipdirect, tmp_path, bcrypt_cost: str):
    """An ipdirect whose auth_file lists alice and bob with bcrypt hashes of `bcrypt_cost`."""
    users = tmp_path / "htpasswd"
    for user, password in ((ALICE, ALICE_PASSWORD), (BOB, BOB_PASSWORD)):
        htpasswd(users, "-B", "-C", bcrypt_cost, str(users), user, password)
    return start_ipdirect(ConfigAdditions(admin=True, access_keys={"auth_file": str(users)}))


def verifications(own) -> float:
    return value(scrape(own), "ipdirect_auth_verifications_total")


def guesses(count: int) -> list[str]:
    return [f"wrong-guess-{index}" for index in range(count)]


def http_burst(own, network, source: str, passwords: list[str]) -> list[int]:
    """Opens a connection per password from `source`, then sends each its login back to back, before any
    answer is read, the last one `RIGHT_LOGIN_AFTER_SECONDS` after the others; returns the statuses in the order
    the logins were sent."""
    connections = [RawConnection.over(connect_from(source, own.address)) for _ in passwords]
    try:
        for index, (connection, password) in enumerate(zip(connections, passwords)):
            if index == len(passwords) - 1:
                time.sleep(RIGHT_LOGIN_AFTER_SECONDS)
            connection.send(get_request(network.plain_url(), network.plain_authority(),
                                        "Connection: close\r\n" + alice(password)))
        return [connection.read_response().status for connection in connections]
    finally:
        for connection in connections:
            connection.close()


def socks5_burst(own, source: str, passwords: list[str]) -> list[int]:
    """The SOCKS5 form of `http_burst`: every greeting is answered first, then the logins are sent as there;
    returns the RFC 1929 status of each (-1 where the proxy closed first)."""
    clients = [connect_from(source, own.address) for _ in passwords]
    try:
        for client in clients:
            client.sendall(socks5_greeting(SOCKS5_USERNAME_PASSWORD))
            assert receive_exactly(client, 2) == bytes([5, SOCKS5_USERNAME_PASSWORD])
        for index, (client, password) in enumerate(zip(clients, passwords)):
            if index == len(passwords) - 1:
                time.sleep(RIGHT_LOGIN_AFTER_SECONDS)
            client.sendall(socks5_login(ALICE, password))
        statuses = []
        for client in clients:
            reply = receive_exactly(client, 2)
            statuses.append(reply[1] if len(reply) == 2 else -1)
        return statuses
    finally:
        for client in clients:
            client.close()


@pytest.mark.parametrize("wrong", ["distinct", "repeated"])
def test_a_burst_of_http_guesses_is_held_back_after_the_allowance_with_the_right_password_last(
        guarded, network, wrong):
    before = verifications(guarded)
    wrong_passwords = guesses(HTTP_BURST_GUESSES) if wrong == "distinct" else ["wrong-guess"] * HTTP_BURST_GUESSES
    statuses = http_burst(guarded, network, HTTP_GUESSER, wrong_passwords + [ALICE_PASSWORD])
    assert statuses == [407] * (HTTP_BURST_GUESSES + 1), statuses
    checks = verifications(guarded) - before
    assert checks <= ALLOWED_FAILURES + 1, f"{checks} crypt(3) checks for one address's burst"
    # Held back: the right password alone, sent now, is refused too.
    assert fetch(guarded, network.plain_url(), network.plain_authority(), alice(), source=HTTP_GUESSER).status == 407


def test_a_burst_of_socks5_guesses_is_held_back_after_the_allowance_with_the_right_password_last(guarded):
    before = verifications(guarded)
    statuses = socks5_burst(guarded, SOCKS5_GUESSER, guesses(SOCKS5_BURST_GUESSES) + [ALICE_PASSWORD])
    assert SOCKS5_LOGIN_ACCEPTED not in statuses, statuses
    checks = verifications(guarded) - before
    assert checks <= ALLOWED_FAILURES + 1, f"{checks} crypt(3) checks for one address's burst"


def test_a_right_login_from_another_address_is_served_promptly_during_a_burst_on_a_slow_hash(
        start_ipdirect, tmp_path, network):
    own = start_with_alice_and_bob(start_ipdirect, tmp_path, SLOW_BCRYPT_COST)
    url, authority = network.plain_url(), network.plain_authority()

    started = time.monotonic()
    assert fetch(own, url, authority, alice(), source=HONEST_CLIENT).status == 200
    one_check = time.monotonic() - started

    connections = [RawConnection.over(connect_from(SLOW_HASH_GUESSER, own.address)) for _ in range(SLOW_HASH_BURST)]
    try:
        for index, connection in enumerate(connections):
            connection.send(get_request(url, authority, "Connection: close\r\n" + alice(f"wrong-guess-{index}")))
        started = time.monotonic()
        # bob's login is in no cache: it needs a check of its own, queued behind the burst.
        honest = fetch(own, url, authority, proxy_authorization(BOB, BOB_PASSWORD), source=HONEST_CLIENT)
        waited = time.monotonic() - started
        statuses = [connection.read_response().status for connection in connections]
    finally:
        for connection in connections:
            connection.close()
    assert honest.status == 200, honest.describe()
    # Its own check and the one in progress, with room for a busy machine; the whole burst would be 64 checks.
    assert waited < 4 * one_check + 1.0, f"waited {waited:.2f} s; one check takes {one_check:.2f} s"
    assert statuses == [407] * SLOW_HASH_BURST, statuses


def test_an_unknown_user_is_refused_in_about_the_time_a_wrong_password_for_a_known_user_takes(
        start_ipdirect, tmp_path, network):
    own = start_with_alice_and_bob(start_ipdirect, tmp_path, TIMING_BCRYPT_COST)
    url, authority = network.plain_url(), network.plain_authority()
    known, unknown = [], []
    sources = iter(TIMING_SOURCES)
    # Interleaved, so that whatever else the machine does weighs on both alike.
    for _ in range(TIMING_SAMPLES):
        for user, samples in ((ALICE, known), ("mallory", unknown)):
            login = proxy_authorization(user, "wrong-guess")
            started = time.monotonic()
            status = fetch(own, url, authority, login, source=next(sources)).status
            samples.append(time.monotonic() - started)
            assert status == 407
    known_median, unknown_median = statistics.median(known), statistics.median(unknown)
    ratio = unknown_median / known_median
    assert 1 / TIMING_FACTOR <= ratio <= TIMING_FACTOR, \
        f"unknown user {unknown_median * 1000:.1f} ms, known user {known_median * 1000:.1f} ms (median)"

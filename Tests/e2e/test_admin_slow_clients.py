"""The admin listener stays reachable when local clients misbehave: a request head must arrive whole within
[admin] header_timeout (bytes trickling in do not extend it), one client address holds at most
[admin] max_connections_per_client of the listener's connections, and the listener at most 64 in all."""

import socket
import time

import pytest
import requests

from harness.ipdirect_proxy import ConfigAdditions
from harness.ports import LOOPBACK
from harness.raw_http import RawConnection

HEAD_TIMEOUT_SECONDS = 2
# The listener's total, AdminSettings.maxConnections.
TOTAL_LIMIT = 64
# The built-in per-address cap: the test runs on the default so it checks what users get.
PER_CLIENT_LIMIT = 16
OTHER_LOOPBACK = "127.0.0.2"
# An address that holds nothing yet, for the connection past the listener's total.
LATECOMER_LOOPBACK = "127.0.0.99"
TRICKLE_INTERVAL_SECONDS = 1.0
# Long enough that trickling it never finishes before the deadline.
TRICKLED_HEAD = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + b"x" * 64
# Scheduling on a busy machine; the deadline itself is what is measured.
SLACK_SECONDS = 1.5
REQUEST_TIMEOUT_SECONDS = 5.0
# Refused connections in the flood case: far more than one log line should ever carry.
FLOOD_CONNECTIONS = 200


@pytest.fixture
def own(start_ipdirect):
    return start_ipdirect(ConfigAdditions(admin=True, admin_keys={"header_timeout": HEAD_TIMEOUT_SECONDS}))


@pytest.fixture
def capped(start_ipdirect):
    """The built-in [admin] settings: the caps users get, and a head deadline long enough that connections
    held between requests stay open while a case runs."""
    return start_ipdirect(ConfigAdditions(admin=True))


def healthz_request(own) -> bytes:
    return f"GET /healthz HTTP/1.1\r\nHost: {LOOPBACK}:{own.admin_port}\r\n\r\n".encode()


def connect_from(own, source: str) -> RawConnection:
    sock = socket.create_connection((LOOPBACK, own.admin_port), timeout=REQUEST_TIMEOUT_SECONDS,
                                    source_address=(source, 0))
    return RawConnection.over(sock)


def healthz_from(own, source: str) -> int:
    with connect_from(own, source) as client:
        client.send(healthz_request(own))
        return client.read_response().status


def hold_served(own, source: str, count: int) -> list[RawConnection]:
    """`count` connections from `source`, each answered once and kept open: each counts against `source`
    from then on."""
    held = []
    for _ in range(count):
        client = connect_from(own, source)
        held.append(client)
        client.send(healthz_request(own))
        assert client.read_response().status == 200
    return held


def warning_lines(own, reason: str) -> list[str]:
    return [line for line in own.process.stderr_text().splitlines()
            if " warning " in line and "event=admin_connection_closed" in line and f"reason={reason}" in line]


def wait_for_warning(own, reason: str) -> list[str]:
    deadline = time.monotonic() + REQUEST_TIMEOUT_SECONDS
    while not warning_lines(own, reason) and time.monotonic() < deadline:
        time.sleep(0.05)
    return warning_lines(own, reason)


def ended_by_server(sock: socket.socket, timeout: float) -> bool:
    """True once the server answers (a 408 is all it can send to a head that never completes), closes or
    resets the connection within `timeout`."""
    sock.settimeout(timeout)
    try:
        sock.recv(4096)
    except socket.timeout:
        return False
    except ConnectionResetError:
        pass
    return True


def test_a_trickling_client_is_closed_at_the_head_deadline_while_healthz_answers(own):
    trickler = RawConnection((LOOPBACK, own.admin_port), timeout=REQUEST_TIMEOUT_SECONDS)
    opened = time.monotonic()
    closed_after = None
    try:
        for byte in TRICKLED_HEAD:
            try:
                trickler.send(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                closed_after = time.monotonic() - opened
                break
            # Another connection is served while the trickle goes on.
            response = requests.get(own.admin_url("/healthz"), timeout=REQUEST_TIMEOUT_SECONDS)
            assert (response.status_code, response.text) == (200, "ok\n")
            if ended_by_server(trickler.sock, TRICKLE_INTERVAL_SECONDS):
                closed_after = time.monotonic() - opened
                break
            assert time.monotonic() - opened < HEAD_TIMEOUT_SECONDS + SLACK_SECONDS + TRICKLE_INTERVAL_SECONDS, \
                "the trickling connection outlived the head deadline"
    finally:
        trickler.close()
    assert closed_after is not None, "the trickling connection was still open when the head was all sent"
    assert HEAD_TIMEOUT_SECONDS - 0.2 <= closed_after <= HEAD_TIMEOUT_SECONDS + SLACK_SECONDS
    [line] = wait_for_warning(own, "head_timeout")
    assert f"client={LOOPBACK}:" in line


def test_the_timed_out_client_is_told_408_when_it_had_begun_a_request(own):
    with RawConnection((LOOPBACK, own.admin_port), timeout=HEAD_TIMEOUT_SECONDS + SLACK_SECONDS) as client:
        client.send(b"GET /healthz HTTP/1.1\r\n")
        response = client.read_response()
        assert (response.status, response.header("Connection")) == (408, "close")
        assert client.closed_by_peer()


def test_the_deadline_starts_again_once_a_response_is_written(own):
    with RawConnection((LOOPBACK, own.admin_port), timeout=REQUEST_TIMEOUT_SECONDS) as client:
        # Three requests, each sent most of a deadline after the last answer: the connection outlives
        # the deadline from its accept, but no single head wait does.
        for _ in range(3):
            time.sleep(HEAD_TIMEOUT_SECONDS * 0.6)
            client.send(healthz_request(own))
            assert client.read_response().status == 200


def test_an_idle_kept_alive_connection_is_closed_quietly(own):
    with RawConnection((LOOPBACK, own.admin_port), timeout=REQUEST_TIMEOUT_SECONDS) as client:
        client.send(healthz_request(own))
        assert client.read_response().status == 200
        assert client.closed_by_peer(timeout=HEAD_TIMEOUT_SECONDS + SLACK_SECONDS)
    # Not an attack: a scraper that keeps its connection between scrapes does this every time.
    assert warning_lines(own, "head_timeout") == []


def test_connections_over_the_per_client_cap_are_refused_while_another_address_is_served(capped):
    held = []
    try:
        held += hold_served(capped, LOOPBACK, PER_CLIENT_LIMIT)
        with connect_from(capped, LOOPBACK) as extra:
            response = extra.read_response()
            assert (response.status, response.header("Connection")) == (503, "close")
            assert extra.closed_by_peer()
        assert healthz_from(capped, OTHER_LOOPBACK) == 200
        for client in held:
            client.send(healthz_request(capped))
            assert client.read_response().status == 200, "a connection under the cap was closed"
        [line] = wait_for_warning(capped, "per_client_limit")
        assert f"client={LOOPBACK}:" in line
        assert f"limit={PER_CLIENT_LIMIT}" in line
        # A connection that ends gives its slot back.
        held.pop().close()
        deadline = time.monotonic() + REQUEST_TIMEOUT_SECONDS
        while healthz_from(capped, LOOPBACK) != 200:
            assert time.monotonic() < deadline, "the freed slot was never given back"
            time.sleep(0.05)
    finally:
        for client in held:
            client.close()


def test_the_listener_refuses_past_its_total_whatever_the_addresses(capped):
    sources = [f"127.0.0.{10 + index}" for index in range(TOTAL_LIMIT // PER_CLIENT_LIMIT)]
    held = []
    try:
        for source in sources:
            held += hold_served(capped, source, PER_CLIENT_LIMIT)
        with connect_from(capped, LATECOMER_LOOPBACK) as extra:
            assert extra.read_response().status == 503
        [line] = wait_for_warning(capped, "connection_limit")
        assert f"limit={TOTAL_LIMIT}" in line
    finally:
        for client in held:
            client.close()


def test_a_flood_over_the_cap_is_logged_as_one_warning(capped):
    held = []
    try:
        held += hold_served(capped, LOOPBACK, PER_CLIENT_LIMIT)
        for _ in range(FLOOD_CONNECTIONS):
            with connect_from(capped, LOOPBACK) as extra:
                assert extra.read_response().status == 503
        assert healthz_from(capped, OTHER_LOOPBACK) == 200
        assert len(wait_for_warning(capped, "per_client_limit")) == 1
    finally:
        for client in held:
            client.close()

"""The admin listener is not a door for web pages: a request whose Host is not the listener's (DNS rebinding)
is answered 421, and a request that changes state needs `X-IPDirect-Admin: 1` and no foreign Origin (CSRF), so
a page in the user's browser can neither read /cache, the names the user visited, nor flush it."""

import pytest
import requests

from harness.ipdirect_proxy import ADMIN_MARKER
from harness.ports import LOOPBACK
from harness.raw_http import RawConnection
from harness.resolution_checks import start_resolving

LONG_TTL = 600
ADMIN_TIMEOUT_SECONDS = 10
NAME = "visited.admin.test"
EVIL = "evil.example"
# What a page on a name of the attacker's, rebound to 127.0.0.1, sends: its own name in Host and Origin.
REBOUND = {"Host": EVIL, "Origin": f"http://{EVIL}"}


@pytest.fixture
def own(provider_setup, start_ipdirect):
    """An ipdirect with an admin listener and one name in its cache (both families)."""
    setup = provider_setup("json-google")
    setup.set_addresses(NAME, a=(LOOPBACK,), ttl=LONG_TTL)
    own = start_resolving(start_ipdirect, setup, admin=True)
    assert requests.get(own.admin_url(f"/resolve?name={NAME}"), timeout=ADMIN_TIMEOUT_SECONDS).status_code == 200
    assert cached_names(own) == {NAME}
    return own


def cached_names(own) -> set[str]:
    """The names in /cache, read the way a local tool does."""
    response = requests.get(own.admin_url("/cache"), timeout=ADMIN_TIMEOUT_SECONDS)
    assert response.status_code == 200, response.text
    return {entry["name"] for entry in response.json()["entries"]}


def refusal_events(own) -> list[str]:
    return [line for line in own.process.stderr_text().splitlines() if "event=admin_request_refused" in line]


def test_a_rebound_name_gets_421_for_reads_and_flushes_and_the_cache_stays(own):
    read = requests.get(own.admin_url("/cache"), headers=REBOUND, timeout=ADMIN_TIMEOUT_SECONDS)
    assert read.status_code == 421
    assert NAME not in read.text
    assert f"'{EVIL}'" in read.text
    assert read.headers["Content-Type"].startswith("text/plain")

    flush = requests.post(own.admin_url("/cache/flush"), headers={**REBOUND, **ADMIN_MARKER},
                          timeout=ADMIN_TIMEOUT_SECONDS)
    assert flush.status_code == 421
    assert cached_names(own) == {NAME}

    events = refusal_events(own)
    assert len(events) == 2, own.process.stderr_text()
    assert " warning " in events[0]
    assert "method=GET target=/cache status=421 reason=misdirected host=evil.example" in events[0]
    assert "method=POST target=/cache/flush status=421" in events[1]


def test_the_right_address_on_another_port_is_misdirected_too(own):
    other_port = own.admin_port + 1 if own.admin_port < 65535 else own.admin_port - 1
    read = requests.get(own.admin_url("/cache"), headers={"Host": f"{LOOPBACK}:{other_port}"},
                        timeout=ADMIN_TIMEOUT_SECONDS)
    assert read.status_code == 421


@pytest.mark.parametrize("host", ["{ip}:{port}", "{ip}", "localhost:{port}", "[::1]:{port}"])
def test_the_listeners_own_names_are_served(own, host):
    response = requests.get(own.admin_url("/cache"), headers={"Host": host.format(ip=LOOPBACK, port=own.admin_port)},
                            timeout=ADMIN_TIMEOUT_SECONDS)
    assert response.status_code == 200
    assert NAME in response.text


def test_a_flush_without_the_marker_is_403_and_flushes_nothing(own):
    response = requests.post(own.admin_url("/cache/flush"), timeout=ADMIN_TIMEOUT_SECONDS)
    assert response.status_code == 403
    assert "'X-IPDirect-Admin: 1'" in response.text
    assert cached_names(own) == {NAME}
    # The rule is the method's, not the route's: no route but GET and HEAD is reached without it.
    assert requests.post(own.admin_url("/metrics"), timeout=ADMIN_TIMEOUT_SECONDS).status_code == 403
    assert "reason=missing_marker field=X-IPDirect-Admin" in refusal_events(own)[0]


def test_a_flush_from_another_origin_is_403_even_with_the_marker(own):
    for origin in (f"http://{EVIL}", "null", f"http://{LOOPBACK}:{own.admin_port + 1}"):
        response = requests.post(own.admin_url("/cache/flush"), headers={"Origin": origin, **ADMIN_MARKER},
                                 timeout=ADMIN_TIMEOUT_SECONDS)
        assert response.status_code == 403, origin
        assert f"'{origin}'" in response.text
    assert cached_names(own) == {NAME}


def test_a_flush_with_the_marker_flushes(own):
    entries = requests.get(own.admin_url("/cache"), timeout=ADMIN_TIMEOUT_SECONDS).json()["size"]
    response = requests.post(own.admin_url("/cache/flush"), headers=ADMIN_MARKER, timeout=ADMIN_TIMEOUT_SECONDS)
    assert response.status_code == 200, response.text
    assert response.json()["flushed"] == entries
    assert cached_names(own) == set()


def test_a_flush_from_the_listeners_own_origin_with_the_marker_flushes(own):
    origin = f"http://localhost:{own.admin_port}"
    response = requests.post(own.admin_url("/cache/flush"), headers={"Origin": origin, **ADMIN_MARKER},
                             timeout=ADMIN_TIMEOUT_SECONDS)
    assert response.status_code == 200, response.text
    assert cached_names(own) == set()


def test_a_refused_request_closes_the_connection_so_its_body_is_never_read_as_a_request(own):
    smuggled = f"POST /cache/flush HTTP/1.1\r\nHost: {LOOPBACK}:{own.admin_port}\r\nX-IPDirect-Admin: 1\r\n\r\n"
    with RawConnection((LOOPBACK, own.admin_port), timeout=ADMIN_TIMEOUT_SECONDS) as client:
        client.send(f"POST /cache/flush HTTP/1.1\r\nHost: {EVIL}\r\nContent-Length: {len(smuggled)}\r\n\r\n"
                    f"{smuggled}".encode())
        response = client.read_response("POST")
        assert (response.status, response.reason) == (421, "Misdirected Request")
        assert response.header("Connection") == "close"
        assert client.closed_by_peer(), "a second response followed the refusal"
    assert cached_names(own) == {NAME}


def test_an_http10_health_check_without_host_is_served(own):
    with RawConnection((LOOPBACK, own.admin_port), timeout=ADMIN_TIMEOUT_SECONDS) as client:
        client.send(b"GET /healthz HTTP/1.0\r\n\r\n")
        response = client.read_response()
    assert (response.status, response.body) == (200, b"ok\n")

"""The network-namespace harness of the scheduling tests, checked on its own: the namespace is private and
goes away, the nftables blackhole really hangs a connect, the slow origin is slow, every origin names itself
and the HTTPDNS stub answers inside. None of this needs ipdirect (test_ipdirect_in_a_namespace.py runs it)."""

import subprocess
import time

import pytest
import requests

from harness.address_blackhole import Blackhole
from harness.identity_origins import IDENTITY_HEADER, SLOW_ANSWER_SECONDS
from harness.network_namespace import NetworkNamespace, namespaces_available

pytestmark = pytest.mark.harness

FAST, SLOW, OTHER = "192.0.2.1", "192.0.2.2", "192.0.2.3"
# curl's exit code for "operation timed out".
CURL_TIMED_OUT = 28
CURL_TIMEOUT_SECONDS = 1
SLOW_SAMPLES = 5


def curl(netns, url: str) -> tuple[int, str]:
    """curl inside the namespace: its exit code and the response head."""
    result = netns.run(["curl", "-sS", "-o", "/dev/null", "-D", "-", "-m", str(CURL_TIMEOUT_SECONDS), url],
                       check=False)
    return result.returncode, result.stdout


def test_a_namespace_has_its_addresses_on_lo_and_is_gone_after_delete():
    if not namespaces_available():
        pytest.skip("network namespaces need root and iproute2")
    namespace = NetworkNamespace.create(addresses=(FAST, "2001:db8::1"))
    try:
        shown = namespace.run(["ip", "-o", "addr", "show", "dev", "lo"]).stdout
        assert f"inet {FAST}/32" in shown and "inet6 2001:db8::1/128" in shown and "127.0.0.1/8" in shown
        assert namespace.name in namespace.run(["ip", "netns", "list"]).stdout
    finally:
        namespace.delete()
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    assert namespace.name not in listed.split()


def test_origins_share_a_port_and_each_names_its_own_address(netns, namespace_origins):
    origins = namespace_origins({FAST: 0.0, SLOW: SLOW_ANSWER_SECONDS, OTHER: 0.0})
    with netns.entered():
        for address in (FAST, SLOW, OTHER):
            response = requests.get(f"http://{address}:{origins.port}/", timeout=5)
            assert response.status_code == 200
            assert response.headers[IDENTITY_HEADER] == address
            assert response.text.strip() == address
    assert origins.requests_per_address() == {FAST: 1, SLOW: 1, OTHER: 1}


def test_an_origin_inside_is_not_reachable_from_the_host_namespace(netns, namespace_origins):
    origins = namespace_origins({FAST: 0.0})
    exit_code, _ = curl(netns, f"http://{FAST}:{origins.port}/")
    assert exit_code == 0
    # From the host the address is not local: the attempt fails or goes elsewhere, never to this origin.
    try:
        response = requests.get(f"http://{FAST}:{origins.port}/", timeout=CURL_TIMEOUT_SECONDS)
    except requests.RequestException:
        return
    assert response.headers.get(IDENTITY_HEADER) != FAST, "reached the namespace's origin from outside"


def test_the_slow_origin_waits_before_every_answer(netns, namespace_origins):
    origins = namespace_origins({FAST: 0.0, SLOW: SLOW_ANSWER_SECONDS})
    with netns.entered(), requests.Session() as session:
        for _ in range(SLOW_SAMPLES):
            started = time.monotonic()
            response = session.get(f"http://{SLOW}:{origins.port}/", timeout=5)
            assert response.headers[IDENTITY_HEADER] == SLOW
            assert time.monotonic() - started >= SLOW_ANSWER_SECONDS


def test_a_blackholed_address_hangs_a_connect_counts_it_and_answers_again_once_removed(netns, namespace_origins):
    origins = namespace_origins({FAST: 0.0, OTHER: 0.0})
    url = f"http://{FAST}:{origins.port}/"
    assert curl(netns, url)[0] == 0

    hole = Blackhole.drop(netns, FAST, origins.port)
    started = time.monotonic()
    exit_code, _ = curl(netns, url)
    assert exit_code == CURL_TIMED_OUT, "a blackholed address must hang, not refuse"
    assert time.monotonic() - started >= CURL_TIMEOUT_SECONDS
    assert hole.packets() >= 1
    # Another address on the same port is untouched.
    assert curl(netns, f"http://{OTHER}:{origins.port}/")[0] == 0

    hole.remove()
    exit_code, head = curl(netns, url)
    assert exit_code == 0 and f"{IDENTITY_HEADER}: {FAST}" in head


def test_a_blackhole_leaves_established_connections_alone(netns, namespace_origins):
    origins = namespace_origins({FAST: 0.0})
    with netns.entered(), requests.Session() as session:
        url = f"http://{FAST}:{origins.port}/"
        assert session.get(url, timeout=5).status_code == 200
        hole = Blackhole.drop(netns, FAST, origins.port)
        assert session.get(url, timeout=5).headers[IDENTITY_HEADER] == FAST
    assert hole.packets() == 0
    assert origins.origins[FAST].connections == 1


def test_the_httpdns_stub_answers_inside_the_namespace(netns, namespace_httpdns_stub):
    namespace_httpdns_stub.set_record("multi.test", a=(FAST,), ttl=2)
    with netns.entered():
        answer = requests.get(namespace_httpdns_stub.url("json-google"), params={"name": "multi.test", "type": "A"},
                              timeout=5).json()
    assert [record["data"] for record in answer["Answer"]] == [FAST]
    assert answer["Answer"][0]["TTL"] == 2
    assert namespace_httpdns_stub.count("json", "multi.test", "A") == 1

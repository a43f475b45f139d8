"""The admin listener's /metrics, read by the Python prometheus_client parser, moving as traffic passes."""

import socket
import time

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from harness.certificates import EXPIRED_HOST_NAME
from harness.connect_tunnel import open_connect_tunnel
from harness.ipdirect_proxy import ADMIN_MARKER, ConfigAdditions
from harness.ports import LOOPBACK
from harness.resolution_checks import NO_POOLING, fetch

# Requests sent in the counting case; each on a fresh connection.
PLAIN_REQUESTS = 5
# How long the counters may take to show requests whose responses the client already has: a worker
# counts an exchange right after writing its last bytes.
SETTLE_SECONDS = 10
ADMIN_TIMEOUT_SECONDS = 10
PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def scrape(own) -> dict[tuple[str, frozenset], float]:
    """Every sample of /metrics as (name, labels) -> value, parsed by prometheus_client."""
    response = requests.get(own.admin_url("/metrics"), timeout=ADMIN_TIMEOUT_SECONDS)
    assert response.status_code == 200
    assert response.headers["Content-Type"] == PROMETHEUS_TYPE
    samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples, name: str, **labels) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def wait_for(own, condition) -> dict:
    """Scrapes until `condition(samples)` holds, or the deadline passes; returns the last scrape."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        samples = scrape(own)
        if condition(samples) or time.monotonic() >= deadline:
            return samples
        time.sleep(0.05)


def open_tunnel(own, authority: str) -> socket.socket:
    return open_connect_tunnel(own.address, authority, ADMIN_TIMEOUT_SECONDS)


@pytest.fixture
def own(start_ipdirect):
    return start_ipdirect(ConfigAdditions(admin=True, proxy_keys=dict(NO_POOLING)))


def test_the_page_parses_and_declares_every_family_once(own):
    response = requests.get(own.admin_url("/metrics"), timeout=ADMIN_TIMEOUT_SECONDS)
    families = list(text_string_to_metric_families(response.text))
    names = [family.name for family in families]
    assert len(names) == len(set(names))
    assert all(name.startswith("ipdirect_") for name in names)
    types = {family.name: family.type for family in families}
    # prometheus_client names counter families without their _total suffix.
    assert types["ipdirect_requests"] == "counter"
    assert types["ipdirect_client_connections_active"] == "gauge"
    assert types["ipdirect_resolver_cache_entries"] == "gauge"
    for histogram in ("ipdirect_resolve_duration_seconds", "ipdirect_upstream_connect_duration_seconds",
                      "ipdirect_upstream_first_byte_duration_seconds"):
        assert types[histogram] == "histogram"


def test_counters_move_as_requests_tunnels_and_failures_pass(own, network):
    # The harness's readiness probes (one connection per proxy listener, closed at once) may be accepted only
    # after the start has returned; they are counted before the baseline is taken, not in the deltas.
    probes = 2 if own.ipv6_port is not None else 1
    before = wait_for(own, lambda s: value(s, "ipdirect_client_connections_total") >= probes
                      and value(s, "ipdirect_client_connections_active") == 0)
    assert value(before, "ipdirect_client_connections_total") == probes
    for _ in range(PLAIN_REQUESTS):
        assert fetch(own, network.plain_url("/echo"), network.plain_authority()).status == 200
    refused = fetch(own, f"http://{LOOPBACK}:{network.closed_port}/", f"{LOOPBACK}:{network.closed_port}")
    assert refused.status == 502
    expired = fetch(own, network.tls_url(EXPIRED_HOST_NAME, "/"), network.tls_authority(EXPIRED_HOST_NAME))
    assert expired.status == 502

    tunnel = open_tunnel(own, network.tls_authority("origin.test"))
    during = wait_for(own, lambda s: value(s, "ipdirect_tunnels_active") == 1)
    assert value(during, "ipdirect_tunnels_active") == 1
    assert value(during, "ipdirect_client_connections_active") >= 1
    tunnel.close()

    def delta(samples, name, **labels):
        return value(samples, name, **labels) - value(before, name, **labels)

    after = wait_for(own, lambda s: delta(s, "ipdirect_tunnels_total") == 1
                     and value(s, "ipdirect_tunnels_active") == 0
                     and delta(s, "ipdirect_requests_total", method="GET", status="200") == PLAIN_REQUESTS
                     and delta(s, "ipdirect_requests_total", method="CONNECT", status="200") == 1)
    assert delta(after, "ipdirect_requests_total", method="GET", status="200") == PLAIN_REQUESTS
    assert delta(after, "ipdirect_requests_total", method="GET", status="502") == 2
    assert delta(after, "ipdirect_requests_total", method="CONNECT", status="200") == 1
    assert delta(after, "ipdirect_tunnels_total") == 1
    assert value(after, "ipdirect_tunnels_active") == 0
    assert delta(after, "ipdirect_client_connections_total") == PLAIN_REQUESTS + 3
    assert value(after, "ipdirect_client_connections_active") == 0
    assert delta(after, "ipdirect_client_received_bytes_total") > 0
    assert delta(after, "ipdirect_client_sent_bytes_total") > 0
    assert delta(after, "ipdirect_upstream_connect_failures_total", reason="connection_refused") == 1
    assert delta(after, "ipdirect_upstream_tls_failures_total", reason="tls_certificate_error") == 1
    first_bytes = delta(after, "ipdirect_upstream_first_byte_duration_seconds_count")
    assert first_bytes == PLAIN_REQUESTS
    assert value(after, "ipdirect_upstream_first_byte_duration_seconds_bucket", le="+Inf") \
        == value(after, "ipdirect_upstream_first_byte_duration_seconds_count")
    assert delta(after, "ipdirect_upstream_first_byte_duration_seconds_sum") > 0
    # Every request and the tunnel connected or tried to; the refused one too.
    assert delta(after, "ipdirect_upstream_connect_duration_seconds_count") == PLAIN_REQUESTS + 3
    assert delta(after, "ipdirect_resolve_duration_seconds_count") == PLAIN_REQUESTS + 3


def test_admin_errors_are_404_405_and_400(own):
    with requests.Session() as admin:
        assert admin.get(own.admin_url("/healthz"), timeout=ADMIN_TIMEOUT_SECONDS).text == "ok\n"
        missing = admin.get(own.admin_url("/nope"), timeout=ADMIN_TIMEOUT_SECONDS)
        assert missing.status_code == 404
        wrong = admin.post(own.admin_url("/metrics"), headers=ADMIN_MARKER, timeout=ADMIN_TIMEOUT_SECONDS)
        assert (wrong.status_code, wrong.headers["Allow"]) == (405, "GET, HEAD")
        assert admin.get(own.admin_url("/cache/flush"), timeout=ADMIN_TIMEOUT_SECONDS).status_code == 405
        assert admin.get(own.admin_url("/resolve"), timeout=ADMIN_TIMEOUT_SECONDS).status_code == 400
        with_body = admin.post(own.admin_url("/cache/flush"), data=b"x", headers=ADMIN_MARKER,
                               timeout=ADMIN_TIMEOUT_SECONDS)
        assert with_body.status_code == 400
        head = admin.head(own.admin_url("/metrics"), timeout=ADMIN_TIMEOUT_SECONDS)
        assert head.status_code == 200 and head.content == b"" and int(head.headers["Content-Length"]) > 0


def test_admin_connection_is_kept_alive_across_requests(own):
    host = f"Host: {LOOPBACK}:{own.admin_port}\r\n"
    with socket.create_connection((LOOPBACK, own.admin_port), timeout=ADMIN_TIMEOUT_SECONDS) as client:
        client.sendall(f"GET /healthz HTTP/1.1\r\n{host}\r\nGET /healthz HTTP/1.1\r\n{host}"
                       f"Connection: close\r\n\r\n".encode())
        received = b""
        while chunk := client.recv(4096):
            received += chunk
    assert received.count(b"HTTP/1.1 200 OK\r\n") == 2
    assert received.endswith(b"ok\n")

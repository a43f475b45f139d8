"""A `format = "dot"` provider (RFC 7858) against a real unbound serving DNS over TLS on a loopback port:
names resolve through it, queries share one pipelined TLS connection, queries in flight survive a server
restart, an idle close is followed by a resumed session, a silent server times out and is demoted, and a
certificate for another name or a key that misses the pin fails closed. A scripted server does what unbound
will not: replies for another question under a query's ID, and answers out of order."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from harness.ipdirect_proxy import ConfigAdditions
from harness.ports import LOOPBACK
from harness.resolution_checks import HTTPDNS_ONLY, NO_POOLING, event_lines, fetch, log_field
from harness.resolver_config import HttpdnsProvider, httpdns_sections
from harness.unbound_doh import Record
from harness.scripted_dot_server import REVERSED_BATCH, ScriptedDotServer
from harness.unbound_dot import UnboundDot

PROVIDER = "unbound-dot"
# Names the server answers, each with a loopback address so a proxied request reaches the test origin.
PARALLEL_NAMES = [f"n{index}.dot.test" for index in range(100)]
RESOLVED_NAME = "resolved.dot.test"
RECORDS = [Record(name, "A", LOOPBACK) for name in [RESOLVED_NAME, *PARALLEL_NAMES]]
ADMIN_TIMEOUT_SECONDS = 20
# Long enough for a second unbound to start while queries wait on the frozen one.
RESTART_TIMEOUT_MS = 10_000
# The base64 of 32 zero octets: well-formed, and the key of no certificate.
WRONG_PIN = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
NO_ERROR, SERVER_FAILURE = 0, 2
# RFC 7830 §4 / RFC 8467 §4.1: the Padding option, and the block queries are padded to.
PADDING_OPTION = 12
PADDING_BLOCK = 128
# A frozen server never answers: the query gives up after this.
SHORT_TIMEOUT_MS = 500
# Short, so the server closes an idle connection well within a test.
SERVER_IDLE_TIMEOUT_MS = 1_000


@pytest.fixture
def unbound_dot(tmp_path, doh_certificate):
    server = UnboundDot.start(tmp_path / "unbound-dot", doh_certificate, RECORDS)
    yield server
    server.stop()


def start_with_dot(start_ipdirect, url: str, ca_file, **keys):
    """An ipdirect whose one source is a dot provider for `url`, reached at the loopback address."""
    provider = HttpdnsProvider(name=PROVIDER, format="dot", url=url, bootstrap=[LOOPBACK], ca_file=ca_file, **keys)
    return start_ipdirect(ConfigAdditions(proxy_keys=dict(NO_POOLING), resolver_keys={"order": list(HTTPDNS_ONLY)},
                                          sections=httpdns_sections(provider), admin=True))


def resolve(own, name: str) -> dict:
    response = requests.get(own.admin_url(f"/resolve?name={name}&type=A"), timeout=ADMIN_TIMEOUT_SECONDS)
    assert response.status_code == 200, response.text
    return response.json()


def connections_opened_metric(own) -> int:
    """ipdirect_dot_connections_opened_total for the provider, from the admin listener's /metrics."""
    response = requests.get(own.admin_url("/metrics"), timeout=ADMIN_TIMEOUT_SECONDS)
    assert response.status_code == 200, response.text
    series = f'ipdirect_dot_connections_opened_total{{provider="{PROVIDER}"}} '
    values = [line[len(series):] for line in response.text.splitlines() if line.startswith(series)]
    return int(values[0]) if values else 0


def answered_through_dot(answer: dict) -> bool:
    return (answer["Status"] == NO_ERROR and answer.get("Comment") == f"source={PROVIDER}"
            and [record["data"] for record in answer.get("Answer", [])] == [LOOPBACK])


def test_proxied_request_resolves_through_the_dot_provider(start_ipdirect, unbound_dot, certificates, network):
    own = start_with_dot(start_ipdirect, unbound_dot.url, certificates.ca_file)

    response = fetch(own, network.plain_url("/echo", RESOLVED_NAME), network.plain_authority(RESOLVED_NAME))

    assert response.status == 200, response.describe()
    assert own.wait_for_access_log(f" target={network.plain_authority(RESOLVED_NAME)} ", f" source={PROVIDER} ")
    opened = event_lines(own, "dot_connection_opened")
    assert len(opened) == 1 and log_field(opened[0], "provider") == PROVIDER, own.stderr_since_mark()


def test_hundred_names_resolve_in_parallel_over_one_tls_connection(start_ipdirect, unbound_dot, certificates, network):
    own = start_with_dot(start_ipdirect, unbound_dot.url, certificates.ca_file)

    def request(name: str) -> int:
        return fetch(own, network.plain_url("/echo", name), network.plain_authority(name)).status

    with ThreadPoolExecutor(max_workers=len(PARALLEL_NAMES)) as clients:
        statuses = list(clients.map(request, PARALLEL_NAMES))

    assert statuses == [200] * len(PARALLEL_NAMES)
    for name in PARALLEL_NAMES:
        assert own.wait_for_access_log(f" target={network.plain_authority(name)} ", f" source={PROVIDER} "), name
    # ipdirect opened one connection for all 200 queries (A and AAAA), and the server sees exactly one.
    assert len(event_lines(own, "dot_connection_opened")) == 1, own.stderr_since_mark()
    assert connections_opened_metric(own) == 1
    assert unbound_dot.established_connections() == 1


def test_queries_in_flight_are_resent_after_the_server_restarts(start_ipdirect, unbound_dot, certificates):
    own = start_with_dot(start_ipdirect, unbound_dot.url, certificates.ca_file, timeout_ms=RESTART_TIMEOUT_MS)
    assert answered_through_dot(resolve(own, RESOLVED_NAME))

    unbound_dot.freeze()
    names = PARALLEL_NAMES[:10]
    answers: dict[str, dict] = {}

    def ask(name: str) -> None:
        answers[name] = resolve(own, name)

    askers = [threading.Thread(target=ask, args=(name,)) for name in names]
    for asker in askers:
        asker.start()
    # The queries reach the frozen server's socket and wait there unread.
    time.sleep(1.0)
    unbound_dot.replace_frozen()
    for asker in askers:
        asker.join(timeout=ADMIN_TIMEOUT_SECONDS)

    assert all(answered_through_dot(answers.get(name, {"Status": -1})) for name in names), answers
    lost = event_lines(own, "dot_connection_lost")
    assert lost and int(log_field(lost[0], "in_flight")) > 0, own.stderr_since_mark()
    assert len(event_lines(own, "dot_connection_opened")) == 2, own.stderr_since_mark()
    assert connections_opened_metric(own) == 2


def test_server_idle_close_is_followed_by_a_resumed_connection(start_ipdirect, tmp_path, doh_certificate,
                                                              certificates):
    server = UnboundDot.start(tmp_path / "unbound-dot-idle", doh_certificate, RECORDS,
                              idle_timeout_ms=SERVER_IDLE_TIMEOUT_MS)
    try:
        own = start_with_dot(start_ipdirect, server.url, certificates.ca_file)
        assert answered_through_dot(resolve(own, PARALLEL_NAMES[0]))
        deadline = time.monotonic() + ADMIN_TIMEOUT_SECONDS
        while not event_lines(own, "dot_connection_lost") and time.monotonic() < deadline:
            time.sleep(0.1)
        lost = event_lines(own, "dot_connection_lost")
        assert lost and log_field(lost[0], "in_flight") == "0", own.stderr_since_mark()

        assert answered_through_dot(resolve(own, PARALLEL_NAMES[1]))

        opened = event_lines(own, "dot_connection_opened")
        assert [log_field(line, "resumed") for line in opened] == ["false", "true"], own.stderr_since_mark()
    finally:
        server.stop()


@pytest.fixture
def scripted_dot(doh_certificate):
    servers = []

    def start(**behaviour) -> ScriptedDotServer:
        server = ScriptedDotServer(doh_certificate, LOOPBACK, **behaviour).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def scripted_url(server: ScriptedDotServer) -> str:
    return f"tls://{UnboundDot.host_name}:{server.port}"


def test_reply_for_another_question_is_dropped_and_the_right_one_taken(start_ipdirect, scripted_dot, certificates):
    server = scripted_dot(spoof_first=True)
    own = start_with_dot(start_ipdirect, scripted_url(server), certificates.ca_file)

    assert answered_through_dot(resolve(own, RESOLVED_NAME))

    dropped = event_lines(own, "dot_reply_dropped")
    assert len(dropped) == 2 and all("was asked for resolved.dot.test" in line for line in dropped), own.stderr_since_mark()


def test_pipelined_queries_are_padded_with_unique_ids_and_answered_out_of_order(start_ipdirect, scripted_dot,
                                                                                 certificates):
    server = scripted_dot()
    own = start_with_dot(start_ipdirect, scripted_url(server), certificates.ca_file)
    names = PARALLEL_NAMES[:8]

    # The server answers only once it holds four queries, so every answer proves four were in flight at once.
    with ThreadPoolExecutor(max_workers=len(names)) as clients:
        answers = list(clients.map(lambda name: resolve(own, name), names))

    assert all(answered_through_dot(answer) for answer in answers), answers
    assert server.connections == 1
    assert len(server.queries) == 2 * len(names)
    # IDs are unique among the queries in flight together: each batch the server held before answering.
    for start in range(0, len(server.queries), REVERSED_BATCH):
        batch = server.queries[start:start + REVERSED_BATCH]
        assert len({query.id for query in batch}) == len(batch), batch
    for query in server.queries:
        assert query.length % PADDING_BLOCK == 0, query
        assert [code for code, _ in query.edns_options or ()] == [PADDING_OPTION], query


def test_silent_server_times_out_and_the_provider_is_demoted(start_ipdirect, unbound_dot, certificates):
    own = start_with_dot(start_ipdirect, unbound_dot.url, certificates.ca_file, timeout_ms=SHORT_TIMEOUT_MS)
    assert answered_through_dot(resolve(own, RESOLVED_NAME))
    unbound_dot.freeze()

    answer = resolve(own, PARALLEL_NAMES[0])

    assert answer["Status"] == SERVER_FAILURE, answer
    failures = event_lines(own, "httpdns_attempt_failed")
    assert failures and all(f"timed out after {SHORT_TIMEOUT_MS} ms" in line for line in failures), own.stderr_since_mark()
    demoted = event_lines(own, "httpdns_provider_demoted")
    assert demoted and log_field(demoted[0], "provider") == PROVIDER, own.stderr_since_mark()


@pytest.mark.parametrize("url_name, keys, reason", [
    ("wrong-name.test", {}, "hostname mismatch"),
    (None, {"spki_sha256": [WRONG_PIN]}, "pin mismatch"),
], ids=["certificate-for-another-name", "key-not-pinned"])
def test_unverified_server_is_never_asked(start_ipdirect, unbound_dot, certificates, url_name, keys, reason):
    url = f"tls://{url_name}:{unbound_dot.port}" if url_name else unbound_dot.url
    own = start_with_dot(start_ipdirect, url, certificates.ca_file, **keys)

    answer = resolve(own, RESOLVED_NAME)

    assert answer["Status"] == SERVER_FAILURE and "Answer" not in answer, answer
    failures = event_lines(own, "httpdns_attempt_failed")
    assert failures and all(reason in line for line in failures), own.stderr_since_mark()
    assert not event_lines(own, "dot_connection_opened")

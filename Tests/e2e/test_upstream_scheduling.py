"""How ipdirect picks among the addresses of a name (issue 9), seen from outside in a network namespace of
each test's own: a dead address (nftables drops its SYNs), a slow origin (answers after 80 ms) and fast ones,
all on documentation addresses of the namespace's loopback, named by the proxy's [hosts] table or by an
HTTPDNS stub whose answer the test changes.

Every origin answers with its own address, so the share of requests per address is counted at the origins.
Unless a case is about keep-alive, upstream pooling is off and every client request comes on a connection of
its own, so each request makes its own choice of address.
"""

import time
from collections import Counter

from prometheus_client.parser import text_string_to_metric_families

from harness.address_blackhole import Blackhole
from harness.identity_origins import SLOW_ANSWER_SECONDS
from harness.ipdirect_proxy import ConfigAdditions
from harness.namespace_client import Answer, NamespaceClient
from harness.resolution_checks import NO_POOLING, access_log_lines, event_lines, log_field
from harness.resolver_config import HttpdnsProvider, httpdns_sections

FIRST, SECOND, THIRD = "192.0.2.1", "192.0.2.2", "192.0.2.3"
# Added to the namespace's lo by the network-change case.
ADDED_ADDRESS = "192.0.2.9"
NAME = "multi.test"
TLS_NAME = "tls.multi.test"
# Named by a [[upstream.balance_rule]] in the override case.
SPREAD_NAME = "spread.multi.test"
# [upstream] connection_attempt_delay of every case: the default, written out.
ATTEMPT_DELAY_MS = 250
# The issue's promise: a dead first address costs under a second.
DEAD_ADDRESS_BUDGET_SECONDS = 1.0
# Requests after the first in the dead-address cases, and how many SYNs the dead address may see meanwhile:
# one per request without quarantine; a background probe and a retransmission or two with it.
AFTER_DEAD_REQUESTS = 20
DEAD_SYNS_AFTER_WARM_UP = 3
# The fastest case: warm-up, then the requests counted, and the share the fast address must get.
FASTEST_WARM_UP = 10
FASTEST_REQUESTS = 50
FASTEST_SHARE = 0.80
# The spread case: requests over three addresses and the share every one must get.
SPREAD_REQUESTS = 60
# Sequential requests over healthy addresses take strict turns: each gets a third, give or take one.
SPREAD_TOLERANCE = 1
# The recovery case counts a recovered address's share against this.
SPREAD_MINIMUM_SHARE = 0.20
# The sticky case: requests on one address, then after that address died.
STICKY_REQUESTS = 30
STICKY_AFTER_DEATH_REQUESTS = 20
# Requests to each name in the balance-rule case.
RULE_REQUESTS = 15
# The recovery case: a short quarantine so it ends within the case, and how long the address may take to be
# seen healthy again once it answers (quarantine, its doubling while traffic met it dead, and a probe).
SHORT_QUARANTINE_SECONDS = 1
SHORT_QUARANTINE_MAX_SECONDS = 4
TRAFFIC_WHILE_DEAD = 10
RECOVERY_SECONDS = 15
RECOVERED_REQUESTS = 30
# The answer-change case: the stub's TTL, and how long after the change requests may still go to the old
# address (one TTL, plus time for the refresh).
SHORT_TTL = 2
ANSWER_CHANGE_GRACE_SECONDS = SHORT_TTL + 3
REQUESTS_BEFORE_CHANGE = 5
REQUESTS_AFTER_MOVE = 5
# Answers that cannot expire during a case, so any new query has another cause.
LONG_TTL = 600
# How long the network-change event and the re-resolution it causes may take.
NETWORK_CHANGE_SECONDS = 5
# How long a change that is no network change is watched for an event (netlink settles within 0.3 s).
QUIET_NETWORK_SECONDS = 1.5
# The probe-rule case: how long the background probes of a preresolved answer may take (the dead address's
# probe runs into the test configuration's connect_timeout of 2 s).
PROBE_SECONDS = 6
# The visibility case: requests made while the first address is dead.
VISIBILITY_REQUESTS = 5
ADDRESS_STATES = {"healthy", "quarantined", "probing", "untried"}
# Pause between polls of the admin listener, the stub or the event log.
POLL_SECONDS = 0.1
ACCESS_LOG_SECONDS = 5


# Configuration ----------------------------------------------------------------------------------------------
def upstream_section(balance: str | None = None, quarantine: int | None = None,
                     quarantine_max: int | None = None) -> str:
    lines = ["", "[upstream]", f"connection_attempt_delay = {ATTEMPT_DELAY_MS}"]
    if balance is not None:
        lines.append(f'balance = "{balance}"')
    if quarantine is not None:
        lines.append(f"quarantine = {quarantine}")
    if quarantine_max is not None:
        lines.append(f"quarantine_max = {quarantine_max}")
    return "\n".join(lines) + "\n"


def scheduling(balance: str | None = None, quarantine: int | None = None, quarantine_max: int | None = None,
               pooling: bool = False, admin: bool = False, resolver_keys=None, sections: str = "",
               ) -> ConfigAdditions:
    return ConfigAdditions(proxy_keys={} if pooling else dict(NO_POOLING),
                           resolver_keys={"order": ["hosts"], **(resolver_keys or {})},
                           sections=upstream_section(balance, quarantine, quarantine_max) + sections,
                           admin=admin)


def stub_resolving(stub, resolver_keys_extra=None, sections: str = "", **keys) -> ConfigAdditions:
    """HTTPDNS only, from the stub's json endpoint, its TTLs taken as they come (min_ttl = 0)."""
    provider = HttpdnsProvider("stub", "json", stub.url("json-google"), [stub.bootstrap])
    return scheduling(resolver_keys={"order": ["httpdns"], "min_ttl": 0, **(resolver_keys_extra or {})},
                      sections=sections + httpdns_sections(provider), **keys)


# Traffic ----------------------------------------------------------------------------------------------------
def url(origins, name: str = NAME) -> str:
    return f"http://{name}:{origins.port}/"


def answered(client: NamespaceClient, target: str, count: int) -> list[Answer]:
    """`count` requests, one after another, each on a connection of its own; every one must be answered."""
    answers = [client.get(target) for _ in range(count)]
    failed = [answer for answer in answers if answer.status != 200]
    assert not failed, f"{len(failed)} of {count} requests failed: {failed[:5]}"
    return answers


def shares(answers: list[Answer]) -> Counter:
    return Counter(answer.origin for answer in answers)


def wait_until(condition, seconds: float, between=None):
    """Polls `condition()` until it returns something true or `seconds` pass; returns the last result.
    `between()` runs after every failed poll (traffic that keeps the proxy busy, say)."""
    deadline = time.monotonic() + seconds
    while True:
        result = condition()
        if result or time.monotonic() >= deadline:
            return result
        if between is not None:
            between()
        time.sleep(POLL_SECONDS)


def wait_for_access_lines(own, authority: str, count: int) -> list[str]:
    wait_until(lambda: len(access_log_lines(own, authority)) >= count, ACCESS_LOG_SECONDS)
    return access_log_lines(own, authority)


# The admin listener -----------------------------------------------------------------------------------------
def host_entry(client: NamespaceClient, host: str, port: int) -> dict | None:
    document = client.admin_json("/upstreams")
    for entry in document["hosts"]:
        if entry["host"] == host and entry["port"] == port:
            return entry
    return None


def address_entry(client: NamespaceClient, host: str, port: int, address: str) -> dict | None:
    entry = host_entry(client, host, port)
    if entry is None:
        return None
    return next((item for item in entry["addresses"] if item["address"] == address), None)


def scrape(client: NamespaceClient) -> tuple[dict, dict]:
    """Every sample of /metrics as (name, labels) -> value, and each family's type, parsed by prometheus_client."""
    response = client.admin_get("/metrics")
    assert response.status_code == 200
    samples, types = {}, {}
    for family in text_string_to_metric_families(response.text):
        types[family.name] = family.type
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples, types


def value(samples, name: str, **labels) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


# Racing and quarantine --------------------------------------------------------------------------------------
def test_a_dead_first_address_costs_under_a_second_once_and_is_then_skipped(netns, namespace_origins,
                                                                             start_ipdirect_in):
    origins = namespace_origins({FIRST: 0.0, SECOND: 0.0})
    dead = Blackhole.drop(netns, FIRST, origins.port)
    own = start_ipdirect_in({NAME: [FIRST, SECOND]}, scheduling())
    client = NamespaceClient(own)

    first = client.get(url(origins))
    assert (first.status, first.origin) == (200, SECOND)
    assert first.seconds < DEAD_ADDRESS_BUDGET_SECONDS, \
        f"the dead first address cost {first.seconds:.2f}s; connection_attempt_delay is {ATTEMPT_DELAY_MS} ms"

    syns_before = dead.packets()
    answers = answered(client, url(origins), AFTER_DEAD_REQUESTS)
    assert shares(answers) == {SECOND: AFTER_DEAD_REQUESTS}
    assert dead.packets() - syns_before <= DEAD_SYNS_AFTER_WARM_UP, \
        f"the dead address was tried {dead.packets() - syns_before} times in {AFTER_DEAD_REQUESTS} requests"

    authority = f"{NAME}:{origins.port}"
    lines = wait_for_access_lines(own, authority, AFTER_DEAD_REQUESTS + 1)
    assert len(lines) == AFTER_DEAD_REQUESTS + 1
    assert all(log_field(line, "upstream") == f"{SECOND}:{origins.port}" for line in lines)
    assert log_field(lines[0], "attempts") == "2", lines[0]
    assert [log_field(line, "attempts") for line in lines[1:]] == ["1"] * AFTER_DEAD_REQUESTS, lines[1:]


def test_a_tunnel_to_a_name_whose_first_address_is_dead_opens_in_under_a_second(netns, namespace_origins,
                                                                                 start_ipdirect_in):
    origins = namespace_origins({FIRST: 0.0, SECOND: 0.0})
    Blackhole.drop(netns, FIRST, origins.port)
    own = start_ipdirect_in({NAME: [FIRST, SECOND]}, scheduling(), connect_ports=(origins.port,))

    answer = NamespaceClient(own).get_through_tunnel(f"{NAME}:{origins.port}")
    assert (answer.status, answer.origin) == (200, SECOND)
    assert answer.seconds < DEAD_ADDRESS_BUDGET_SECONDS, f"the tunnel took {answer.seconds:.2f}s to carry a reply"


def test_tls_origination_to_a_name_whose_first_address_is_dead_answers_in_under_a_second(
        netns, namespace_origins, start_ipdirect_in, certificates, tmp_path):
    certificate = certificates.issue(tmp_path / "certificate", "scheduling", TLS_NAME)
    origins = namespace_origins({FIRST: 0.0, SECOND: 0.0}, certificate=certificate)
    Blackhole.drop(netns, FIRST, origins.port)
    own = start_ipdirect_in({TLS_NAME: [FIRST, SECOND]}, scheduling())

    authority = f"{TLS_NAME}:{origins.port}"
    answer = NamespaceClient(own).get_absolute(f"https://{authority}/", authority)
    assert (answer.status, answer.origin) == (200, SECOND)
    assert answer.seconds < DEAD_ADDRESS_BUDGET_SECONDS, f"the TLS request took {answer.seconds:.2f}s"


def test_a_quarantined_address_comes_back_once_it_answers_again(netns, namespace_origins, start_ipdirect_in):
    origins = namespace_origins({FIRST: 0.0, SECOND: 0.0, THIRD: 0.0})
    dead = Blackhole.drop(netns, FIRST, origins.port)
    own = start_ipdirect_in({NAME: [FIRST, SECOND, THIRD]},
                            scheduling("spread", SHORT_QUARANTINE_SECONDS, SHORT_QUARANTINE_MAX_SECONDS, admin=True))
    client = NamespaceClient(own)

    while_dead = answered(client, url(origins), TRAFFIC_WHILE_DEAD)
    assert FIRST not in shares(while_dead)
    entry = address_entry(client, NAME, origins.port, FIRST)
    assert entry is not None and entry["state"] == "quarantined", entry

    dead.remove()
    recovered = wait_until(lambda: (address_entry(client, NAME, origins.port, FIRST) or {}).get("state")
                           == "healthy", RECOVERY_SECONDS, between=lambda: client.get(url(origins)))
    assert recovered, (f"{FIRST} still not healthy {RECOVERY_SECONDS}s after it answered again: "
                       f"{address_entry(client, NAME, origins.port, FIRST)}")

    after = shares(answered(client, url(origins), RECOVERED_REQUESTS))
    assert after[FIRST] >= SPREAD_MINIMUM_SHARE * RECOVERED_REQUESTS, f"{FIRST} got {after} after recovering"
    endpoint = f"address={FIRST}:{origins.port}"
    assert any(endpoint in line for line in event_lines(own, "address_quarantined")), own.stderr_since_mark()
    assert any(endpoint in line for line in event_lines(own, "address_recovered")), own.stderr_since_mark()


# Balance modes ----------------------------------------------------------------------------------------------
def test_fastest_sends_most_requests_to_the_faster_address(namespace_origins, start_ipdirect_in):
    # The slow address is listed first: the order alone would send everything there.
    origins = namespace_origins({FIRST: SLOW_ANSWER_SECONDS, SECOND: 0.0})
    own = start_ipdirect_in({NAME: [FIRST, SECOND]}, scheduling("fastest"))
    client = NamespaceClient(own)

    answered(client, url(origins), FASTEST_WARM_UP)
    counted = shares(answered(client, url(origins), FASTEST_REQUESTS))
    assert counted[SECOND] >= FASTEST_SHARE * FASTEST_REQUESTS, f"after warm-up: {dict(counted)}"


def test_spread_gives_every_address_an_even_share(namespace_origins, start_ipdirect_in):
    origins = namespace_origins({FIRST: 0.0, SECOND: 0.0, THIRD: 0.0})
    own = start_ipdirect_in({NAME: [FIRST, SECOND, THIRD]}, scheduling("spread"))

    counted = shares(answered(NamespaceClient(own), url(origins), SPREAD_REQUESTS))
    even = SPREAD_REQUESTS // 3
    for address in (FIRST, SECOND, THIRD):
        assert abs(counted[address] - even) <= SPREAD_TOLERANCE, f"{address}: {dict(counted)}"


def test_sticky_keeps_one_address_and_moves_to_another_only_when_it_dies(netns, namespace_origins,
                                                                          start_ipdirect_in):
    origins = namespace_origins({FIRST: 0.0, SECOND: 0.0, THIRD: 0.0})
    own = start_ipdirect_in({NAME: [FIRST, SECOND, THIRD]}, scheduling("sticky"))
    client = NamespaceClient(own)

    before = shares(answered(client, url(origins), STICKY_REQUESTS))
    assert len(before) == 1, f"sticky used several addresses: {dict(before)}"
    (chosen,) = before

    Blackhole.drop(netns, chosen, origins.port)
    after = [answer.origin for answer in answered(client, url(origins), STICKY_AFTER_DEATH_REQUESTS)]
    assert chosen not in after and len(set(after)) == 1, f"after {chosen} died, in order: {after}"


def test_a_balance_rule_overrides_the_mode_for_the_hosts_it_names(namespace_origins, start_ipdirect_in):
    origins = namespace_origins({FIRST: 0.0, SECOND: 0.0, THIRD: 0.0})
    rule = f'\n[[upstream.balance_rule]]\nhosts = ["{SPREAD_NAME}"]\nbalance = "spread"\n'
    addresses = [FIRST, SECOND, THIRD]
    own = start_ipdirect_in({NAME: addresses, SPREAD_NAME: addresses}, scheduling("sticky", sections=rule))
    client = NamespaceClient(own)

    assert len(shares(answered(client, url(origins), RULE_REQUESTS))) == 1
    spread = shares(answered(client, url(origins, SPREAD_NAME), RULE_REQUESTS))
    assert set(spread) == set(addresses), f"{SPREAD_NAME} under its spread rule: {dict(spread)}"


# Following the answers --------------------------------------------------------------------------------------
def test_a_changed_answer_moves_a_keep_alive_client_within_one_ttl(namespace_origins, namespace_httpdns_stub,
                                                                   start_ipdirect_in):
    origins = namespace_origins({FIRST: 0.0, SECOND: 0.0})
    namespace_httpdns_stub.set_record(NAME, a=(FIRST,), ttl=SHORT_TTL)
    own = start_ipdirect_in({}, stub_resolving(namespace_httpdns_stub, pooling=True))

    with NamespaceClient(own).keep_alive() as client:
        before = [client.get(url(origins)) for _ in range(REQUESTS_BEFORE_CHANGE)]
        assert [(answer.status, answer.origin) for answer in before] == [(200, FIRST)] * REQUESTS_BEFORE_CHANGE
        # The case is about pooled upstream connections, which once skipped resolution altogether.
        assert origins.origins[FIRST].connections < REQUESTS_BEFORE_CHANGE, "ipdirect pooled nothing"
        queries_before = namespace_httpdns_stub.count("json", NAME, "A")

        namespace_httpdns_stub.set_record(NAME, a=(SECOND,), ttl=SHORT_TTL)
        changed_at = time.monotonic()
        after: list[Answer] = []
        moved = wait_until(lambda: after.append(client.get(url(origins))) or after[-1].origin == SECOND,
                           ANSWER_CHANGE_GRACE_SECONDS)
        assert moved, (f"{ANSWER_CHANGE_GRACE_SECONDS}s after the answer changed, requests still go to "
                       f"{shares(after)}; queries for {NAME}: {namespace_httpdns_stub.count('json', NAME, 'A')}")
        assert all(answer.status == 200 for answer in after), after
        assert namespace_httpdns_stub.count("json", NAME, "A") > queries_before
        assert time.monotonic() - changed_at <= ANSWER_CHANGE_GRACE_SECONDS + 1

        later = [client.get(url(origins)) for _ in range(REQUESTS_AFTER_MOVE)]
        assert [(answer.status, answer.origin) for answer in later] == [(200, SECOND)] * REQUESTS_AFTER_MOVE

    # One client connection throughout: the client kept going, the proxy moved it.
    lines = wait_for_access_lines(own, f"{NAME}:{origins.port}", len(before) + len(after) + len(later))
    assert len({log_field(line, "client") for line in lines}) == 1, lines


def test_a_network_change_re_resolves_the_names_in_use(netns, namespace_origins, namespace_httpdns_stub,
                                                       start_ipdirect_in):
    origins = namespace_origins({FIRST: 0.0})
    namespace_httpdns_stub.set_record(NAME, a=(FIRST,), ttl=LONG_TTL)
    own = start_ipdirect_in({}, stub_resolving(namespace_httpdns_stub, admin=True))
    answered(NamespaceClient(own), url(origins), 3)
    queries_before = namespace_httpdns_stub.count("json", NAME, "A")

    netns.add_address(ADDED_ADDRESS)
    changed = wait_until(lambda: event_lines(own, "network_changed")
                         and namespace_httpdns_stub.count("json", NAME, "A") > queries_before,
                         NETWORK_CHANGE_SECONDS)
    assert changed, (f"{NETWORK_CHANGE_SECONDS}s after {ADDED_ADDRESS} was added: network_changed events "
                     f"{event_lines(own, 'network_changed')}, queries for {NAME} "
                     f"{namespace_httpdns_stub.count('json', NAME, 'A')} (before: {queries_before})")


def test_a_probe_rule_ranks_a_new_answer_before_its_first_request(netns, namespace_origins, namespace_httpdns_stub,
                                                                  start_ipdirect_in):
    # The dead address is listed first: without probing, the first request would race it and pay the delay.
    origins = namespace_origins({FIRST: 0.0, SECOND: 0.0})
    Blackhole.drop(netns, FIRST, origins.port)
    namespace_httpdns_stub.set_record(NAME, a=(FIRST, SECOND), ttl=LONG_TTL)
    probe = f'\n[[upstream.probe]]\nhosts = ["{NAME}"]\nport = {origins.port}\n'
    own = start_ipdirect_in({}, stub_resolving(namespace_httpdns_stub, admin=True,
                                               resolver_keys_extra={"preresolve": [NAME]}, sections=probe))
    client = NamespaceClient(own)

    def probed() -> bool:
        samples, _ = scrape(client)
        return (value(samples, "ipdirect_upstream_probes_total", outcome="up") >= 1
                and value(samples, "ipdirect_upstream_probes_total", outcome="down") >= 1)
    assert wait_until(probed, PROBE_SECONDS), f"no probe of both addresses within {PROBE_SECONDS}s: {scrape(client)[0]}"

    first = client.get(url(origins))
    assert (first.status, first.origin) == (200, SECOND)
    (line,) = wait_for_access_lines(own, f"{NAME}:{origins.port}", 1)
    assert (log_field(line, "attempts"), log_field(line, "rank")) == ("1", "1"), line
    dead = address_entry(client, NAME, origins.port, FIRST)
    assert dead is not None and dead["state"] in ("quarantined", "probing"), dead


def test_a_link_without_addresses_is_no_network_change(netns, namespace_origins, namespace_httpdns_stub,
                                                      start_ipdirect_in):
    # Containers' veth pairs come and go on a host all the time; they change no address and no route.
    origins = namespace_origins({FIRST: 0.0})
    namespace_httpdns_stub.set_record(NAME, a=(FIRST,), ttl=LONG_TTL)
    own = start_ipdirect_in({}, stub_resolving(namespace_httpdns_stub))
    answered(NamespaceClient(own), url(origins), 2)
    queries_before = namespace_httpdns_stub.count("json", NAME, "A")

    netns.run(["ip", "link", "add", "probe0", "type", "veth", "peer", "name", "probe1"])
    netns.run(["ip", "link", "set", "probe0", "up"])
    time.sleep(QUIET_NETWORK_SECONDS)
    assert not event_lines(own, "network_changed"), own.stderr_since_mark()
    assert namespace_httpdns_stub.count("json", NAME, "A") == queries_before

    netns.add_address(ADDED_ADDRESS)
    assert wait_until(lambda: event_lines(own, "network_changed"), NETWORK_CHANGE_SECONDS), \
        "an address added after the link must still count"


# What it shows ----------------------------------------------------------------------------------------------
def test_admin_upstreams_and_metrics_show_the_ranking_and_the_quarantined_address(netns, namespace_origins,
                                                                                  start_ipdirect_in):
    origins = namespace_origins({FIRST: 0.0, SECOND: 0.0})
    Blackhole.drop(netns, FIRST, origins.port)
    own = start_ipdirect_in({NAME: [FIRST, SECOND]}, scheduling(admin=True))
    client = NamespaceClient(own)
    answered(client, url(origins), VISIBILITY_REQUESTS)

    entry = host_entry(client, NAME, origins.port)
    assert entry is not None, client.admin_json("/upstreams")
    assert entry["balance"] == "fastest"
    addresses = {item["address"]: item for item in entry["addresses"]}
    assert set(addresses) == {FIRST, SECOND}
    assert sorted(item["rank"] for item in addresses.values()) == [1, 2]
    assert all(item["state"] in ADDRESS_STATES and item["port"] == origins.port for item in addresses.values())
    dead, alive = addresses[FIRST], addresses[SECOND]
    assert dead["state"] == "quarantined" and dead["quarantined_until_ms"] > 0, dead
    assert dead["failures"] >= 1 and dead["last_error"], dead
    assert alive["state"] == "healthy" and alive["rank"] == 1, alive
    assert alive["successes"] >= VISIBILITY_REQUESTS and alive["failures"] == 0, alive

    samples, types = scrape(client)
    # prometheus_client names counter families without their _total suffix.
    assert types["ipdirect_upstream_connect_attempts"] == "counter"
    assert types["ipdirect_upstream_race_wins"] == "counter"
    assert types["ipdirect_upstream_quarantined_addresses"] == "gauge"
    assert types["ipdirect_upstream_probes"] == "counter"
    attempts = "ipdirect_upstream_connect_attempts_total"
    assert value(samples, attempts, outcome="connected") >= VISIBILITY_REQUESTS
    assert sum(value(samples, attempts, outcome=outcome) for outcome in ("timeout", "abandoned")) >= 1
    assert value(samples, "ipdirect_upstream_race_wins_total", position="2") >= 1
    assert value(samples, "ipdirect_upstream_quarantined_addresses") >= 1

"""What is left when HTTPDNS fails, and how an expired answer is used: every provider down falls back to the
system resolver; without it, to the expired answer (RFC 8767 serve-stale); an expired answer is served at once
while one refresh runs; a system resolver that lies does not stop ipdirect reaching the true server, and with
`compare_system` the lie is logged once per name and counted."""

import time

import pytest

from harness.dns_server import SYSTEM_RESOLVED_ADDRESS, SYSTEM_RESOLVED_NAME, query_a
from harness.httpdns_state import StubMode
from harness.network import UNUSED_LOOPBACK_ADDRESSES
from harness.ports import LOOPBACK
from harness.proxy_status import assert_generated_error
from harness.resolver_scenarios import (assert_reached_origin, counters_from, dns_replies, events, fetch_name,
                                        ipdirects,  # noqa: F401 (a fixture)
                                        nothing_listens, resolver_additions, start_lying_dns_server,
                                        stub_provider, unreachable_provider, wait_for_access_lines, wait_for_event,
                                        wait_until)

PROVIDER = "stubjson"
# TTL of the records that are to expire during a test, and the `min_ttl` that lets them.
SHORT_TTL = 1
# Waiting this long after a SHORT_TTL answer was fetched puts it past its TTL.
PAST_SHORT_TTL_SECONDS = SHORT_TTL + 0.6
# The refresh of an expired answer is made this slow (the provider's timeout is longer, so it succeeds).
REFRESH_DELAY_SECONDS = 3.0
REFRESH_TIMEOUT_MS = 10_000
# A stale answer is served "at once": well under the refresh delay, generous for a loaded machine.
SERVED_AT_ONCE_SECONDS = 1.0
# Requests sent while the refresh runs.
STALE_REQUESTS = 5
# Bound on the requests that poll for the refreshed answer.
REFRESH_POLL_REQUESTS = 60
REFRESH_POLL_INTERVAL_SECONDS = 0.25
# Requests answered stale while the provider is down; together they may start one refresh only.
OUTAGE_REQUESTS = 6
# An expired answer whose refresh failed is asked for again at most every 10 s (ipdirect's refresh retry
# interval), so once the provider is back it must be renewed within that, plus slack.
RECOVERY_BOUND_SECONDS = 15.0
RECOVERY_POLL_SECONDS = 0.5


def origin_upstream(network) -> str:
    return f"{LOOPBACK}:{network.nginx_http_port}"


# Fallback to the system resolver ----------------------------------------------------------------------------------
def test_every_provider_down_falls_back_to_the_system_resolver(ipdirects, httpdns_stub, network):
    httpdns_stub.set_mode(StubMode.http_error(503))
    proxy = ipdirects.start(resolver_additions(unreachable_provider("first"),
                                               stub_provider(httpdns_stub, "second", "json-google"),
                                               order=("hosts", "httpdns", "system")))

    fetched = fetch_name(proxy, network, SYSTEM_RESOLVED_NAME)
    assert_reached_origin(fetched, network, SYSTEM_RESOLVED_NAME)
    [line] = wait_for_access_lines(proxy, network, SYSTEM_RESOLVED_NAME, 1)
    assert (line["source"], line["upstream"]) == ("system", f"{SYSTEM_RESOLVED_ADDRESS}:{network.nginx_http_port}")
    wait_for_event(proxy, "httpdns_failed", provider="first", name=SYSTEM_RESOLVED_NAME)
    wait_for_event(proxy, "httpdns_failed", provider="second", name=SYSTEM_RESOLVED_NAME)
    assert httpdns_stub.count("json", SYSTEM_RESOLVED_NAME) >= 1

    counters = ipdirects.stop_for_counters(proxy)
    assert counters.query("first", "failed") == counters.query("second", "failed") == 1, counters.line
    assert counters.query("system", "answered") == 1, counters.line


# Fallback to the stale answer ------------------------------------------------------------------------------------
def resolve_then_fail(ipdirects, stub, network, name: str, **resolver_keys):
    """ipdirect without the system source; `name` fetched once with a SHORT_TTL answer, then the provider
    fails and the answer expires."""
    stub.set_record(name, a=[LOOPBACK], ttl=SHORT_TTL)
    proxy = ipdirects.start(resolver_additions(stub_provider(stub, PROVIDER), min_ttl=SHORT_TTL, **resolver_keys))
    first = fetch_name(proxy, network, name)
    assert_reached_origin(first, network, name)
    assert wait_for_access_lines(proxy, network, name, 1)[0]["source"] == PROVIDER
    stub.set_mode(StubMode.http_error(503))
    time.sleep(PAST_SHORT_TTL_SECONDS)
    return proxy


def test_without_system_an_expired_answer_is_served_when_every_provider_fails(ipdirects, httpdns_stub, network):
    name = "stale.test"
    proxy = resolve_then_fail(ipdirects, httpdns_stub, network, name)

    second = fetch_name(proxy, network, name)
    assert_reached_origin(second, network, name)
    line = wait_for_access_lines(proxy, network, name, 2)[1]
    assert (line["source"], line["upstream"]) == (f"stale:{PROVIDER}", origin_upstream(network)), line
    assert int(line["cache_age_ms"]) >= SHORT_TTL * 1000, line
    wait_for_event(proxy, "httpdns_failed", provider=PROVIDER, name=name)
    wait_for_event(proxy, "serve_stale", name=name)
    third = fetch_name(proxy, network, name)
    assert_reached_origin(third, network, name)
    assert wait_for_access_lines(proxy, network, name, 3)[2]["source"] == f"stale:{PROVIDER}"
    assert not events(proxy.stderr_since_mark(), "resolve_failed", name=name)

    counters = ipdirects.stop_for_counters(proxy)
    assert counters.query(PROVIDER, "answered") == 1 and counters.query(PROVIDER, "failed") >= 1, counters.line


def test_each_request_answered_stale_is_counted_once(ipdirects, httpdns_stub, network):
    """Two requests answered with the expired answer are two stale serves; the refresh the first one started,
    which fails, serves nobody."""
    name = "counted.test"
    proxy = resolve_then_fail(ipdirects, httpdns_stub, network, name)
    assert_reached_origin(fetch_name(proxy, network, name), network, name)
    wait_for_event(proxy, "serve_stale", name=name)
    assert_reached_origin(fetch_name(proxy, network, name), network, name)
    assert [line["source"] for line in wait_for_access_lines(proxy, network, name, 3)][1:] \
        == [f"stale:{PROVIDER}"] * 2
    counters = ipdirects.stop_for_counters(proxy)
    assert counters.cache["stale_serves"] == 2, counters.line


def test_stale_answer_is_renewed_once_the_provider_recovers_and_not_asked_for_per_request(ipdirects, httpdns_stub,
                                                                                          network):
    name = "recovering.test"
    proxy = resolve_then_fail(ipdirects, httpdns_stub, network, name)
    for _ in range(OUTAGE_REQUESTS):
        fetched = fetch_name(proxy, network, name)
        assert_reached_origin(fetched, network, name)
        assert fetched.seconds < SERVED_AT_ONCE_SECONDS
    wait_for_event(proxy, "httpdns_failed", provider=PROVIDER, name=name)
    lines = wait_for_access_lines(proxy, network, name, 1 + OUTAGE_REQUESTS)
    assert {line["source"] for line in lines[1:]} == {f"stale:{PROVIDER}"}, lines
    assert httpdns_stub.count("json", name, "A") == 2, "a failing provider was asked more than once per refresh " \
                                                       "interval"

    httpdns_stub.set_mode(StubMode.normal())
    httpdns_stub.set_record(name, a=[LOOPBACK], ttl=60)
    recovered, answered, source = time.monotonic(), 1 + OUTAGE_REQUESTS, None
    while time.monotonic() - recovered < RECOVERY_BOUND_SECONDS:
        assert_reached_origin(fetch_name(proxy, network, name), network, name)
        answered += 1
        source = wait_for_access_lines(proxy, network, name, answered)[answered - 1]["source"]
        if source == f"cache:{PROVIDER}":
            break
        assert source == f"stale:{PROVIDER}", source
        time.sleep(RECOVERY_POLL_SECONDS)
    assert source == f"cache:{PROVIDER}", f"still {source} {RECOVERY_BOUND_SECONDS}s after the provider recovered"
    assert httpdns_stub.count("json", name, "A") == 3


def test_with_serve_stale_off_an_expired_answer_is_not_served(ipdirects, httpdns_stub, network):
    """The contrast to the test above: the same sequence with `serve_stale = 0` fails."""
    name = "nostale.test"
    proxy = resolve_then_fail(ipdirects, httpdns_stub, network, name, serve_stale=0)

    second = fetch_name(proxy, network, name)
    assert_generated_error(second.response, 502, {"dns_error"}, mentions=(name,))
    assert httpdns_stub.count("json", name) >= 3, "the expired answer was not asked for again"
    counters = ipdirects.stop_for_counters(proxy)
    assert counters.cache["stale_serves"] == 0, counters.line


# Served at once while one refresh runs ----------------------------------------------------------------------------
def test_expired_answer_is_served_at_once_while_one_refresh_runs(ipdirects, httpdns_stub, network):
    name = "refresh.test"
    httpdns_stub.set_record(name, a=[LOOPBACK], ttl=SHORT_TTL)
    proxy = ipdirects.start(resolver_additions(stub_provider(httpdns_stub, PROVIDER, timeout_ms=REFRESH_TIMEOUT_MS),
                                               min_ttl=SHORT_TTL))
    assert_reached_origin(fetch_name(proxy, network, name), network, name)
    assert (httpdns_stub.count("json", name, "A"), httpdns_stub.count("json", name, "AAAA")) == (1, 1)
    time.sleep(PAST_SHORT_TTL_SECONDS)
    # The refreshed answer lives long, so once it is in, requests are plain cache hits.
    httpdns_stub.set_record(name, a=[LOOPBACK], ttl=60)
    httpdns_stub.set_mode(StubMode.slow(REFRESH_DELAY_SECONDS), "json")

    refresh_started = time.monotonic()
    for index in range(STALE_REQUESTS):
        fetched = fetch_name(proxy, network, name)
        assert_reached_origin(fetched, network, name)
        assert fetched.seconds < SERVED_AT_ONCE_SECONDS, f"request {index} waited {fetched.seconds:.2f}s"
    lines = wait_for_access_lines(proxy, network, name, 1 + STALE_REQUESTS)
    assert [line["source"] for line in lines] == [PROVIDER] + [f"stale:{PROVIDER}"] * STALE_REQUESTS, lines
    assert time.monotonic() - refresh_started < REFRESH_DELAY_SECONDS, "the stale requests were not all served " \
                                                                        "before the refresh could have finished"

    source, answered = None, 1 + STALE_REQUESTS
    for _ in range(REFRESH_POLL_REQUESTS):
        fetched = fetch_name(proxy, network, name)
        assert_reached_origin(fetched, network, name)
        answered += 1
        source = wait_for_access_lines(proxy, network, name, answered)[answered - 1]["source"]
        if source == f"cache:{PROVIDER}":
            break
        assert source == f"stale:{PROVIDER}" and fetched.seconds < SERVED_AT_ONCE_SECONDS, (source, fetched.seconds)
        time.sleep(REFRESH_POLL_INTERVAL_SECONDS)
    assert source == f"cache:{PROVIDER}", "the refreshed answer never replaced the expired one"
    assert time.monotonic() - refresh_started >= REFRESH_DELAY_SECONDS * 0.9, "refreshed without the slow provider"
    assert (httpdns_stub.count("json", name, "A"), httpdns_stub.count("json", name, "AAAA")) == (2, 2), \
        "more than one refresh (or none) for the expired answer"

    served_stale = [line for line in wait_for_access_lines(proxy, network, name, answered)
                    if line["source"] == f"stale:{PROVIDER}"]
    counters = ipdirects.stop_for_counters(proxy)
    assert counters.cache["stale_serves"] == len(served_stale), counters.line
    assert counters.query(PROVIDER, "answered") == 2, counters.line


# A system resolver that lies ---------------------------------------------------------------------------------------
LIE_DOMAIN = "lie.test"
LIED_ADDRESS = UNUSED_LOOPBACK_ADDRESSES[0]
# Bypasses HTTPDNS, so the system resolver's lie reaches ipdirect unchecked.
BYPASSED_NAME = f"direct.{LIE_DOMAIN}"


@pytest.fixture
def lying_dns(tmp_path):
    """dnsmasq answering every name under lie.test with an address where nothing listens; stopping it after
    the test restores the truth (the shared dnsmasq is never touched)."""
    server = start_lying_dns_server(tmp_path / "lying-dnsmasq", {LIE_DOMAIN: LIED_ADDRESS})
    yield server
    server.stop()


def lying_system_additions(stub, lying_dns, **resolver_keys):
    return resolver_additions(stub_provider(stub, PROVIDER), order=("hosts", "httpdns", "system"),
                              system_nameservers=[lying_dns.address], bypass=[BYPASSED_NAME], **resolver_keys)


def test_system_resolver_that_lies_does_not_stop_ipdirect_reaching_the_true_server(ipdirects, httpdns_stub,
                                                                                    lying_dns, network):
    assert query_a((lying_dns.host, lying_dns.port), LIE_DOMAIN).addresses == [LIED_ADDRESS]
    assert nothing_listens(LIED_ADDRESS, network.nginx_http_port)
    httpdns_stub.set_record(LIE_DOMAIN, a=[LOOPBACK])
    proxy = ipdirects.start(lying_system_additions(httpdns_stub, lying_dns))

    assert_reached_origin(fetch_name(proxy, network, LIE_DOMAIN), network, LIE_DOMAIN)
    [line] = wait_for_access_lines(proxy, network, LIE_DOMAIN, 1)
    assert (line["source"], line["upstream"]) == (PROVIDER, origin_upstream(network)), line
    # The lie is real: a name that skips HTTPDNS is sent where the lying resolver says.
    bypassed = fetch_name(proxy, network, BYPASSED_NAME)
    assert bypassed.response.status == 502, bypassed.response.describe()
    [line] = wait_for_access_lines(proxy, network, BYPASSED_NAME, 1)
    assert line["source"] == "system" and f"{LIED_ADDRESS}:{network.nginx_http_port} refused" in line["note"], line
    assert httpdns_stub.count(name=BYPASSED_NAME) == 0


def test_compare_system_logs_a_lie_once_per_name_and_counts_each(ipdirects, httpdns_stub, lying_dns, network):
    httpdns_stub.set_record(LIE_DOMAIN, a=[LOOPBACK], ttl=SHORT_TTL)
    httpdns_stub.set_record(SYSTEM_RESOLVED_NAME, a=[LOOPBACK])
    proxy = ipdirects.start(lying_system_additions(httpdns_stub, lying_dns, compare_system=True, min_ttl=SHORT_TTL))

    for _ in range(2):
        assert_reached_origin(fetch_name(proxy, network, LIE_DOMAIN), network, LIE_DOMAIN)
    # Each worker writes its own access-log batches, so lines of two connections may appear in either order.
    assert sorted(line["source"] for line in wait_for_access_lines(proxy, network, LIE_DOMAIN, 2)) \
        == sorted([PROVIDER, f"cache:{PROVIDER}"])
    said = wait_for_event(proxy, "system_dns_disagrees", name=LIE_DOMAIN)
    assert (said["httpdns"], said["provider"], said["system"]) == (LOOPBACK, PROVIDER, LIED_ADDRESS), said

    # The answer expires and is fetched again: a second disagreement, counted but not logged again.
    time.sleep(PAST_SHORT_TTL_SECONDS)
    assert_reached_origin(fetch_name(proxy, network, LIE_DOMAIN), network, LIE_DOMAIN)
    wait_until(lambda: httpdns_stub.count("json", LIE_DOMAIN, "A") == 2, "the refresh of the expired answer")
    # The second comparison's system answer went out before the next name is even asked for.
    wait_until(lambda: dns_replies(lying_dns, LIE_DOMAIN, LIED_ADDRESS) == 2, "the second system lookup")
    # A name HTTPDNS knows and the lying resolver calls nonexistent (NXDOMAIN) disagrees too.
    assert_reached_origin(fetch_name(proxy, network, SYSTEM_RESOLVED_NAME), network, SYSTEM_RESOLVED_NAME)
    wait_for_event(proxy, "system_dns_disagrees", name=SYSTEM_RESOLVED_NAME)

    stderr = ipdirects.stop(proxy)
    assert len(events(stderr, "system_dns_disagrees", name=LIE_DOMAIN)) == 1, stderr[-6000:]
    assert counters_from(stderr).system_disagreements == 3, counters_from(stderr).line


def test_without_compare_system_nothing_is_compared(ipdirects, httpdns_stub, lying_dns, network):
    httpdns_stub.set_record(LIE_DOMAIN, a=[LOOPBACK])
    proxy = ipdirects.start(lying_system_additions(httpdns_stub, lying_dns))
    assert_reached_origin(fetch_name(proxy, network, LIE_DOMAIN), network, LIE_DOMAIN)
    stderr = ipdirects.stop(proxy)
    assert not events(stderr, "system_dns_disagrees")
    assert counters_from(stderr).system_disagreements == 0

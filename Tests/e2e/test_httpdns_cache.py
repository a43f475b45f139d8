"""ipdirect's resolver cache seen from outside: the provider's own query counts and the access log's source.

Each case runs an ipdirect of its own (HTTPDNS only, no upstream pooling, every request on a new connection),
so every request resolves its host: through the provider once, from the cache after that.
"""

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness.httpdns_state import StubMode
from harness.ports import LOOPBACK
from harness.proxy_status import assert_generated_error
from harness.resolution_checks import access_log_lines, event_lines, fetch, log_field, start_resolving

# Long enough that no answer expires or reaches its refresh point (75% of the TTL) during a case.
LONG_TTL = 600
REPEATED_REQUESTS = 200
# Bounds the loop of repeated requests; on loopback they take a few seconds at most.
REPEATED_REQUESTS_SECONDS = 120
CONCURRENT_REQUESTS = 50
# Fresh names asked in bursts, one after another, in each concurrent case.
BURST_ROUNDS = 3
# How long the stub holds each answer in the concurrent case, so every request arrives while the first
# query is still out (the provider's timeout_ms stays at its default, 2000).
SLOW_ANSWER_SECONDS = 1.0
# Generous bound on the concurrent case: every request waits for one slow answer, not for fifty.
CONCURRENT_REQUESTS_SECONDS = 30
# How long the access log may take to show every line of a burst of requests.
ACCESS_LOG_SECONDS = 10
NEGATIVE_TTL = 30


def wait_for_access_lines(proxy, authority: str, count: int) -> list[str]:
    deadline = time.monotonic() + ACCESS_LOG_SECONDS
    while True:
        lines = access_log_lines(proxy, authority)
        if len(lines) >= count or time.monotonic() >= deadline:
            return lines
        time.sleep(0.05)


def queries_per_type(setup, name: str) -> dict[str, int]:
    return {record_type: setup.queries(name, record_type) for record_type in ("A", "AAAA")}


@pytest.mark.parametrize("kind", ["unbound-get", "json-google", "aliyun"])
def test_many_requests_for_one_name_cause_one_query_per_type_within_the_ttl(kind, provider_setup,
                                                                              start_ipdirect, network):
    setup = provider_setup(kind)
    name = f"repeat.{kind}.cache.test"
    setup.set_addresses(name, a=(LOOPBACK,), ttl=LONG_TTL)
    own = start_resolving(start_ipdirect, setup)
    authority = network.plain_authority(name)

    started = time.monotonic()
    statuses = []
    for _ in range(REPEATED_REQUESTS):
        statuses.append(fetch(own, network.plain_url("/echo", name), authority).status)
        assert time.monotonic() - started < REPEATED_REQUESTS_SECONDS, f"only {len(statuses)} requests in time"

    assert statuses == [200] * REPEATED_REQUESTS
    assert queries_per_type(setup, name) == {"A": 1, "AAAA": 1}
    # Each worker thread buffers its own access-log lines, so lines need not be in request order.
    lines = wait_for_access_lines(own, authority, REPEATED_REQUESTS)
    sources = Counter(log_field(line, "source") for line in lines)
    assert sources == {kind: 1, f"cache:{kind}": REPEATED_REQUESTS - 1}, sources
    for line in lines:
        age = log_field(line, "cache_age_ms")
        assert age == "-" if log_field(line, "source") == kind else age.isdigit(), line


@pytest.mark.parametrize("kind, slow_format", [("json-cloudflare", "json"), ("tencent", "tencent"),
                                               ("unbound-post", None)])
def test_concurrent_first_requests_for_one_name_cause_one_query_per_type(kind, slow_format, provider_setup,
                                                                         start_ipdirect, network):
    """Several rounds, each a burst of first requests for a fresh name: requests that arrive while the answer
    is being stored must still join the one query or find the cache, never start another."""
    setup = provider_setup(kind)
    names = [f"burst{round_number}.{kind}.cache.test" for round_number in range(BURST_ROUNDS)]
    for name in names:
        setup.set_addresses(name, a=(LOOPBACK,), ttl=LONG_TTL)
    if slow_format is not None:
        setup.stub.set_mode(StubMode.slow(SLOW_ANSWER_SECONDS), slow_format)
    own = start_resolving(start_ipdirect, setup)

    queries = {}
    for name in names:
        authority = network.plain_authority(name)
        start_together = threading.Barrier(CONCURRENT_REQUESTS)

        def one_request() -> int:
            start_together.wait(timeout=CONCURRENT_REQUESTS_SECONDS)
            return fetch(own, network.plain_url("/echo", name), authority).status

        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=CONCURRENT_REQUESTS) as pool:
            futures = [pool.submit(one_request) for _ in range(CONCURRENT_REQUESTS)]
            statuses = [future.result(timeout=CONCURRENT_REQUESTS_SECONDS) for future in futures]
        assert time.monotonic() - started < CONCURRENT_REQUESTS_SECONDS
        assert statuses == [200] * CONCURRENT_REQUESTS
        lines = wait_for_access_lines(own, authority, CONCURRENT_REQUESTS)
        assert len(lines) == CONCURRENT_REQUESTS
        assert {log_field(line, "source") for line in lines} <= {kind, f"cache:{kind}"}
        queries[name] = queries_per_type(setup, name)

    assert queries == {name: {"A": 1, "AAAA": 1} for name in names}


# The first provider answers NXDOMAIN; the second knows the name, so a failover would answer the request.
@pytest.mark.parametrize("kind, other_kind", [("unbound-get", "tencent"), ("json-cloudflare", "unbound-post")])
def test_nxdomain_is_a_cached_negative_answer_not_a_failover(kind, other_kind, provider_setup, start_ipdirect,
                                                             network):
    setup, other = provider_setup(kind), provider_setup(other_kind)
    name = f"missing.{kind}.cache.test"
    other.set_addresses(name, a=(LOOPBACK,))
    own = start_resolving(start_ipdirect, setup, other, resolver_keys={"negative_ttl": NEGATIVE_TTL})
    authority = network.plain_authority(name)

    first = fetch(own, network.plain_url("/", name), authority)
    assert_generated_error(first, 502, {"dns_error"}, mentions=(name, "no such name"))
    asked = queries_per_type(setup, name)
    assert set(asked.values()) <= {0, 1} and sum(asked.values()) >= 1, asked
    assert queries_per_type(other, name) == {"A": 0, "AAAA": 0}, "NXDOMAIN was treated as a failure"
    assert not event_lines(own, "httpdns_failed"), own.stderr_since_mark()

    second = fetch(own, network.plain_url("/", name), authority)
    assert_generated_error(second, 502, {"dns_error"}, mentions=(name, "no such name"))
    assert queries_per_type(setup, name) == asked, "the negative answer was not cached"
    assert queries_per_type(other, name) == {"A": 0, "AAAA": 0}
    statuses = [log_field(line, "status") for line in wait_for_access_lines(own, authority, 2)]
    assert statuses == ["502", "502"]


@pytest.mark.parametrize("kind", ["aliyun", "tencent"])
def test_an_answer_without_addresses_is_cached_negative(kind, provider_setup, start_ipdirect, network):
    """aliyun and tencent have no NXDOMAIN: an unknown name comes back with no addresses."""
    setup = provider_setup(kind)
    name = f"empty.{kind}.cache.test"
    own = start_resolving(start_ipdirect, setup, resolver_keys={"negative_ttl": NEGATIVE_TTL})
    authority = network.plain_authority(name)

    first = fetch(own, network.plain_url("/", name), authority)
    assert_generated_error(first, 502, {"dns_error"}, mentions=(name,))
    assert queries_per_type(setup, name) == {"A": 1, "AAAA": 1}
    second = fetch(own, network.plain_url("/", name), authority)
    assert_generated_error(second, 502, {"dns_error"}, mentions=(name,))
    assert queries_per_type(setup, name) == {"A": 1, "AAAA": 1}, "the empty answer was not cached"


def test_a_cached_answer_without_addresses_gives_the_same_reason_as_the_first(provider_setup, start_ipdirect,
                                                                              network):
    """The name may well exist (aliyun has no NXDOMAIN); a cached "no addresses" must not turn into "no such
    name" on the next request."""
    setup = provider_setup("aliyun")
    name = "empty-again.aliyun.cache.test"
    own = start_resolving(start_ipdirect, setup, resolver_keys={"negative_ttl": NEGATIVE_TTL})
    authority = network.plain_authority(name)

    first = fetch(own, network.plain_url("/", name), authority)
    second = fetch(own, network.plain_url("/", name), authority)

    assert (first.status, second.status) == (502, 502)
    assert "no such name" not in (first.header("Proxy-Status") or "")
    assert second.header("Proxy-Status") == first.header("Proxy-Status")
    assert queries_per_type(setup, name) == {"A": 1, "AAAA": 1}

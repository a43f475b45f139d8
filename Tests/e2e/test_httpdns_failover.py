"""HTTPDNS failover: a provider that is down, slow, answering an HTTP error or garbage is left for the next one
within its timeout, with its reason logged and counted; a bootstrap address that refuses is left for the
provider's next address; when every provider fails and nothing follows in `order`, the client is told why."""

import re
from dataclasses import dataclass

import pytest

from harness.doh_certificates import HTTPDNS_STUB_HOST_NAME
from harness.httpdns_state import StubMode
from harness.network import UNUSED_LOOPBACK_ADDRESSES
from harness.ports import LOOPBACK
from harness.proxy_status import assert_generated_error
from harness.resolver_config import HttpdnsProvider
from harness.resolver_scenarios import (assert_reached_origin, events, fetch_name,
                                        ipdirects,  # noqa: F401 (a fixture)
                                        nothing_listens, resolver_additions, stub_provider, unreachable_provider,
                                        wait_for_access_lines, wait_for_event)

NAME = "failover.test"
# The first provider's timeout per attempt.
FIRST_TIMEOUT_MS = 1000
# How long the slow stub takes to answer: far past FIRST_TIMEOUT_MS.
SLOW_SECONDS = 6.0
# Failing over may cost the first provider's whole timeout plus the second's answer; generous for a loaded
# machine, and still well under SLOW_SECONDS, which a proxy that waits for the slow answer would need.
FAILOVER_BOUND_SECONDS = FIRST_TIMEOUT_MS / 1000 + 2.5


@dataclass(frozen=True)
class Failure:
    id: str
    mode: StubMode | None          # None: the provider's port has no listener at all
    reason: str                    # what the logged reason must say (regular expression, any case)
    outcome: str                   # the counter the failure is counted under


FAILURES = [
    Failure("down", None, r"connect.*refused", "failed"),
    Failure("slow", StubMode.slow(SLOW_SECONDS), rf"timed out after {FIRST_TIMEOUT_MS} ms", "timeout"),
    Failure("http-503", StubMode.http_error(503), r"HTTP status 503", "failed"),
    Failure("garbage", StubMode.garbage(), r"not valid JSON", "failed"),
]


def failing_first_provider(stub, failure: Failure) -> HttpdnsProvider:
    if failure.mode is None:
        return unreachable_provider("first", timeout_ms=FIRST_TIMEOUT_MS)
    stub.set_mode(failure.mode, "json")
    return stub_provider(stub, "first", "json-google", timeout_ms=FIRST_TIMEOUT_MS)


@pytest.mark.parametrize("failure", FAILURES, ids=[failure.id for failure in FAILURES])
def test_failing_provider_is_left_for_the_next_within_its_timeout(ipdirects, httpdns_stub, network, failure):
    httpdns_stub.set_record(NAME, a=[LOOPBACK])
    first = failing_first_provider(httpdns_stub, failure)
    proxy = ipdirects.start(resolver_additions(first, stub_provider(httpdns_stub, "second", "aliyun")))

    fetched = fetch_name(proxy, network, NAME)
    assert_reached_origin(fetched, network, NAME)
    assert fetched.seconds < FAILOVER_BOUND_SECONDS, f"failover took {fetched.seconds:.2f}s"
    [line] = wait_for_access_lines(proxy, network, NAME, 1)
    assert (line["source"], line["upstream"]) == ("second", f"{LOOPBACK}:{network.nginx_http_port}"), line
    failed = wait_for_event(proxy, "httpdns_failed", provider="first", name=NAME)
    assert re.search(failure.reason, failed["reason"], re.IGNORECASE), failed
    assert httpdns_stub.count("aliyun", NAME) == 1
    if failure.mode is not None:
        assert httpdns_stub.count("json", NAME) >= 1, "the failing provider was never asked"

    counters = ipdirects.stop_for_counters(proxy)
    assert counters.query("first", failure.outcome) == 1, counters.line
    assert counters.query("first", "answered") == 0, counters.line
    assert counters.query("second", "answered") == 1, counters.line


def test_refusing_bootstrap_address_is_left_for_the_providers_next(ipdirects, httpdns_stub, network):
    """The stub listens on 127.0.0.1 only, so its port on 127.0.0.2 refuses. The URL's host name is never
    looked up (nothing could answer `httpdns.test`): the provider is reached by its bootstrap addresses."""
    refusing = UNUSED_LOOPBACK_ADDRESSES[0]
    assert nothing_listens(refusing, httpdns_stub.port)
    httpdns_stub.set_record(NAME, a=[LOOPBACK])
    provider = HttpdnsProvider("twoaddresses", "json",
                               f"http://{HTTPDNS_STUB_HOST_NAME}:{httpdns_stub.port}/resolve",
                               bootstrap=[refusing, LOOPBACK], timeout_ms=FIRST_TIMEOUT_MS)
    proxy = ipdirects.start(resolver_additions(provider))

    fetched = fetch_name(proxy, network, NAME)
    assert_reached_origin(fetched, network, NAME)
    assert fetched.seconds < FAILOVER_BOUND_SECONDS, f"failover took {fetched.seconds:.2f}s"
    [line] = wait_for_access_lines(proxy, network, NAME, 1)
    assert line["source"] == "twoaddresses", line
    attempt = wait_for_event(proxy, "httpdns_attempt_failed", provider="twoaddresses", name=NAME)
    assert attempt["address"] == refusing and f"{refusing}:{httpdns_stub.port} refused" in attempt["reason"], attempt
    assert not events(proxy.stderr_since_mark(), "httpdns_failed", provider="twoaddresses")
    requests = httpdns_stub.state.requests("json")
    assert requests and all(request.headers.get("host") == f"{HTTPDNS_STUB_HOST_NAME}:{httpdns_stub.port}"
                            for request in requests), [request.headers for request in requests]

    counters = ipdirects.stop_for_counters(proxy)
    assert counters.query("twoaddresses", "answered") == 1, counters.line
    assert counters.query("twoaddresses", "failed") == counters.query("twoaddresses", "timeout") == 0, counters.line


def test_every_provider_failing_without_system_answers_502_naming_each_reason(ipdirects, httpdns_stub, network):
    httpdns_stub.set_record(NAME, a=[LOOPBACK])
    httpdns_stub.set_mode(StubMode.http_error(503))
    proxy = ipdirects.start(resolver_additions(unreachable_provider("first", timeout_ms=FIRST_TIMEOUT_MS),
                                               stub_provider(httpdns_stub, "second", "tencent")))

    fetched = fetch_name(proxy, network, NAME)
    assert_generated_error(fetched.response, 502, {"dns_error"}, mentions=(NAME, "first", "second", "503"))
    assert fetched.seconds < FAILOVER_BOUND_SECONDS, f"took {fetched.seconds:.2f}s"
    assert httpdns_stub.count("tencent", NAME) == 1
    wait_for_event(proxy, "resolve_failed", name=NAME)
    counters = ipdirects.stop_for_counters(proxy)
    assert counters.query("first", "failed") == counters.query("second", "failed") == 1, counters.line


def test_every_provider_timing_out_answers_504_dns_timeout(ipdirects, httpdns_stub, network):
    httpdns_stub.set_record(NAME, a=[LOOPBACK])
    httpdns_stub.set_mode(StubMode.slow(SLOW_SECONDS))
    proxy = ipdirects.start(resolver_additions(
        stub_provider(httpdns_stub, "first", "json-google", timeout_ms=FIRST_TIMEOUT_MS),
        stub_provider(httpdns_stub, "second", "aliyun", timeout_ms=FIRST_TIMEOUT_MS)))

    fetched = fetch_name(proxy, network, NAME)
    assert_generated_error(fetched.response, 504, {"dns_timeout"}, mentions=(NAME,))
    assert fetched.seconds < 2 * FIRST_TIMEOUT_MS / 1000 + 2.5, f"took {fetched.seconds:.2f}s"
    assert httpdns_stub.count("json", NAME) >= 1 and httpdns_stub.count("aliyun", NAME) == 1
    counters = ipdirects.stop_for_counters(proxy)
    assert counters.query("first", "timeout") == counters.query("second", "timeout") == 1, counters.line


def test_provider_that_failed_is_asked_after_the_others_for_the_next_name(ipdirects, httpdns_stub, network):
    """The slow first provider costs the first name its timeout; the next name goes to the second provider
    without waiting for the first again."""
    later = "later.test"
    for name in (NAME, later):
        httpdns_stub.set_record(name, a=[LOOPBACK])
    first = failing_first_provider(httpdns_stub, FAILURES[1])
    proxy = ipdirects.start(resolver_additions(first, stub_provider(httpdns_stub, "second", "aliyun")))

    assert_reached_origin(fetch_name(proxy, network, NAME), network, NAME)
    wait_for_event(proxy, "httpdns_provider_demoted", provider="first")
    assert_reached_origin(fetch_name(proxy, network, later), network, later)
    [line] = wait_for_access_lines(proxy, network, later, 1)
    assert line["source"] == "second", line
    assert httpdns_stub.count("json", later) == 0, "the demoted provider was asked first again"
    assert httpdns_stub.count("aliyun", later) == 1

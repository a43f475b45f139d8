"""Resolver policy: the rebinding guard on HTTPDNS answers, `bypass`, and `preresolve`.

Safety: the stub's `private` mode answers 10.0.0.1 / fd00::1, so it is used only with
`allow_private_upstreams = false`, where those addresses are refused before any connection. Answers with a
public address (192.0.2.1, RFC 5737 documentation space, which ipdirect counts as public) go only to
`ipdirect resolve`, which prints addresses and never connects to them.
"""

import time

import pytest

from harness.dns_server import SYSTEM_RESOLVED_ADDRESS, SYSTEM_RESOLVED_NAME
from harness.httpdns_state import PRIVATE_ADDRESSES, StubMode
from harness.ports import LOOPBACK
from harness.proxy_status import assert_generated_error
from harness.resolution_checks import event_lines, fetch, log_field, resolve_command, start_resolving

PRIVATE_V4, PRIVATE_V6 = PRIVATE_ADDRESSES["A"], PRIVATE_ADDRESSES["AAAA"]
# RFC 5737 TEST-NET-1: routed nowhere, and public as far as ipdirect's rebinding guard is concerned.
DOCUMENTATION_ADDRESS = "192.0.2.1"
REFUSE_PRIVATE = {"allow_private_upstreams": False}
ALLOW_PRIVATE = {"allow_private_upstreams": True}
# How long startup preresolution may take to reach the provider.
PRERESOLVE_SECONDS = 10
# `preresolve` keep-warm: a TTL this short is refreshed at 75% of it (and at most once a second).
KEEP_WARM_TTL = 2
KEEP_WARM_SECONDS = 15
POLL_SECONDS = 0.1


def refusals(proxy, provider: str, name: str) -> list[str]:
    return [line for line in event_lines(proxy, "httpdns_answer_refused")
            if f" provider={provider} " in line and f" name={name} " in line]


def refused_addresses(line: str) -> set[str]:
    return set(log_field(line, "addresses").split(","))


# Rebinding guard ----------------------------------------------------------------------------------------------
def test_private_addresses_from_httpdns_are_refused_before_connecting(provider_setup, start_ipdirect, network):
    setup = provider_setup("json-google")
    name = "private.policy.test"
    setup.set_addresses(name, a=(LOOPBACK,), aaaa=("::1",))
    setup.stub.set_mode(StubMode.private(), "json")
    own = start_resolving(start_ipdirect, setup, access_keys=REFUSE_PRIVATE)
    authority = network.plain_authority(name)

    response = fetch(own, network.plain_url("/", name), authority)

    assert_generated_error(response, 502, {"dns_error"}, mentions=(name,))
    lines = refusals(own, "json-google", name)
    assert lines, own.stderr_since_mark()
    assert set().union(*map(refused_addresses, lines)) == {PRIVATE_V4, PRIVATE_V6}
    line = own.wait_for_access_log(f" target={authority} ", " status=502")
    assert log_field(line, "upstream") == "-"


def test_loopback_from_httpdns_is_refused_too_unless_private_upstreams_are_allowed(provider_setup, start_ipdirect,
                                                                                   network):
    setup = provider_setup("tencent")
    name = "loopback.policy.test"
    setup.set_addresses(name, a=(LOOPBACK,))
    authority = network.plain_authority(name)

    refusing = start_resolving(start_ipdirect, setup, access_keys=REFUSE_PRIVATE)
    assert_generated_error(fetch(refusing, network.plain_url("/", name), authority), 502, {"dns_error"},
                           mentions=(name,))
    assert [refused_addresses(line) for line in refusals(refusing, "tencent", name)] == [{LOOPBACK}]

    allowing = start_resolving(start_ipdirect, setup, access_keys=ALLOW_PRIVATE)
    response = fetch(allowing, network.plain_url("/echo", name), authority)
    assert response.status == 200, response.describe()
    allowing.wait_for_access_log(f" target={authority} ", f" upstream={LOOPBACK}:{network.nginx_http_port} ",
                                 " source=tencent ", " status=200")
    assert not event_lines(allowing, "httpdns_answer_refused")


def test_a_provider_answering_only_refused_addresses_fails_over_to_the_next(provider_setup, start_ipdirect,
                                                                             network, unbound_doh):
    """Through the proxy every candidate is loopback, so the next provider's answer is refused as well: what
    shows is that it was asked, and each refusal was logged."""
    first, second = provider_setup("json-google"), provider_setup("unbound-get")
    name = "failover.policy.test"
    first.set_addresses(name, a=(LOOPBACK,))
    second.set_addresses(name, a=(LOOPBACK,))
    first.stub.set_mode(StubMode.private(), "json")
    own = start_resolving(start_ipdirect, first, second, access_keys=REFUSE_PRIVATE)

    response = fetch(own, network.plain_url("/", name), network.plain_authority(name))

    assert_generated_error(response, 502, {"dns_error"}, mentions=(name,))
    assert first.queries(name, "A") == 1 and second.queries(name, "A") == 1
    assert [refused_addresses(line) for line in refusals(own, "json-google", name)] == [{PRIVATE_V4}]
    assert [refused_addresses(line) for line in refusals(own, "unbound-get", name)] == [{LOOPBACK}]
    failures = [line for line in event_lines(own, "httpdns_failed") if " provider=json-google " in line]
    assert failures, own.stderr_since_mark()


def test_the_next_provider_answers_after_the_first_answered_only_private_addresses(provider_setup,
                                                                                    start_ipdirect):
    first, second = provider_setup("json-google"), provider_setup("aliyun")
    name = "next.policy.test"
    # The stub holds one record for every format; only json is switched to private answers.
    first.set_addresses(name, a=(DOCUMENTATION_ADDRESS,))
    first.stub.set_mode(StubMode.private(), "json")
    own = start_resolving(start_ipdirect, first, second, access_keys=REFUSE_PRIVATE)

    output = resolve_command(own, name)

    assert output.exit_code == 0, output.describe()
    assert [(line.address, line.source) for line in output.lines] == [(DOCUMENTATION_ADDRESS, "aliyun")]
    assert f"event=httpdns_answer_refused provider=json-google name={name} addresses={PRIVATE_V4} " \
        in output.stderr, output.describe()
    assert first.queries(name, "A") == 1 and second.queries(name, "A") == 1


def test_only_the_non_public_addresses_of_a_mixed_answer_are_dropped(provider_setup, start_ipdirect):
    setup = provider_setup("tencent")
    name = "mixed.policy.test"
    setup.set_addresses(name, a=(DOCUMENTATION_ADDRESS, LOOPBACK))
    own = start_resolving(start_ipdirect, setup, access_keys=REFUSE_PRIVATE)

    output = resolve_command(own, name)

    assert output.exit_code == 0, output.describe()
    assert [(line.address, line.source) for line in output.lines] == [(DOCUMENTATION_ADDRESS, "tencent")]
    assert f"event=httpdns_answer_refused provider=tencent name={name} addresses={LOOPBACK} " in output.stderr, \
        output.describe()


# bypass -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pattern, bypassed, not_bypassed", [
    (f"*.{SYSTEM_RESOLVED_NAME}", f"www.{SYSTEM_RESOLVED_NAME}", SYSTEM_RESOLVED_NAME),
    (SYSTEM_RESOLVED_NAME, SYSTEM_RESOLVED_NAME, f"www.{SYSTEM_RESOLVED_NAME}"),
], ids=["wildcard", "exact"])
def test_bypassed_names_never_reach_httpdns_and_resolve_through_the_system_resolver(
        pattern, bypassed, not_bypassed, provider_setup, start_ipdirect, network):
    """dnsmasq answers dns.test and every name under it; the provider knows both names too, so a name that
    is not bypassed is answered by the provider, and one that is can only have come from dnsmasq."""
    setup = provider_setup("json-google")
    for name in (bypassed, not_bypassed):
        setup.set_addresses(name, a=(LOOPBACK,))
    own = start_resolving(start_ipdirect, setup, order=("hosts", "httpdns", "system"),
                          resolver_keys={"bypass": [pattern]})

    for name, source in ((bypassed, "system"), (not_bypassed, "json-google")):
        authority = network.plain_authority(name)
        response = fetch(own, network.plain_url("/echo", name), authority)
        assert response.status == 200, response.describe()
        own.wait_for_access_log(f" target={authority} ",
                                f" upstream={SYSTEM_RESOLVED_ADDRESS}:{network.nginx_http_port} ",
                                f" source={source} ", " status=200")
    assert setup.stub.count(name=bypassed) == 0, "a bypassed name reached the provider"
    assert setup.queries(not_bypassed, "A") == 1


# preresolve ---------------------------------------------------------------------------------------------------
def wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_SECONDS)
    return True


def test_preresolved_names_are_queried_at_startup_before_any_request(provider_setup, start_ipdirect, network):
    setup = provider_setup("unbound-get")
    names = ["first.preresolve.test", "second.preresolve.test"]
    for name in names:
        setup.set_addresses(name, a=(LOOPBACK,))
    own = start_resolving(start_ipdirect, setup, resolver_keys={"preresolve": names})

    def all_asked() -> bool:
        return all(setup.queries(name, record_type) == 1 for name in names for record_type in ("A", "AAAA"))

    assert wait_until(all_asked, PRERESOLVE_SECONDS), {name: setup.queries(name, "A") for name in names}
    assert not own.access_log_since_mark().strip(), "no request was made, yet the access log has lines"

    authority = network.plain_authority(names[0])
    response = fetch(own, network.plain_url("/echo", names[0]), authority)
    assert response.status == 200, response.describe()
    own.wait_for_access_log(f" target={authority} ", " source=cache:unbound-get ", " status=200")
    assert setup.queries(names[0], "A") == 1


def test_preresolved_names_are_kept_warm(provider_setup, start_ipdirect):
    setup = provider_setup("aliyun")
    name = "warm.preresolve.test"
    setup.set_addresses(name, a=(LOOPBACK,), ttl=KEEP_WARM_TTL)
    start_resolving(start_ipdirect, setup, resolver_keys={"preresolve": [name], "min_ttl": 1})

    assert wait_until(lambda: setup.queries(name, "A") >= 3, KEEP_WARM_SECONDS), \
        f"{setup.queries(name, 'A')} queries in {KEEP_WARM_SECONDS} s for a name with a {KEEP_WARM_TTL} s TTL"

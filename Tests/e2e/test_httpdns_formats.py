"""Every HTTPDNS flavour resolves A and AAAA records for ipdirect, which then reaches the right origin.

Each case runs an ipdirect of its own whose only sources are `[hosts]` and one provider, and asks it for a name
only that provider knows: an answered request proves the provider answered. The access log must name the
provider as the source, and the provider's own server must have counted exactly one query per record type.
The DoH cases on dnsdist also show on dnsdist's counters the HTTP version (h2 by ALPN over TLS, HTTP/1.1 in
cleartext) and the method (GET or POST) ipdirect used.
"""

from dataclasses import replace

import pytest

from harness.ipv6_origin import ANSWER_PREFIX, IPV6_LOOPBACK
from harness.ports import LOOPBACK
from harness.provider_setups import PROVIDER_KINDS, SECRETS, ProviderSetup
from harness.resolution_checks import fetch, resolve_command, start_resolving
from harness.resolver_records import (ALIAS_NAME, ALIAS_TTL, CHAIN_CNAME_TTL, CHAIN_NAME, CHAIN_TARGET,
                                      CHAIN_TARGET_TTL, RESOLVED_NAME, RESOLVED_TTL)

# A and AAAA: DoH and json ask once per type; aliyun and tencent ask for both in one request, counted for each.
RECORD_TYPES = ("A", "AAAA")
# The TTL `ipdirect resolve` prints may be a few seconds below the record's, as time passes between.
TTL_SLACK_SECONDS = 5
# A record TTL unlike any default (stub 60, min_ttl 30), so the TTL printed must come from the answer.
FORMAT_TTL = 45


def frontend_snapshot(setup: ProviderSetup):
    return setup.frontend_stats() if setup.transport is not None else None


def assert_asked_once_per_type(setup: ProviderSetup, name: str) -> None:
    counts = {record_type: setup.queries(name, record_type) for record_type in RECORD_TYPES}
    assert counts == {"A": 1, "AAAA": 1}, f"{setup.kind} got these queries for {name}: {counts}"
    for target in setup.stub_targets(name):
        for fragment in setup.target_fragments:
            assert fragment in target, f"{fragment!r} is not in the request {target!r}"
        if setup.hides_name:
            assert name not in target, f"the encrypted form sent the name in clear: {target!r}"


def assert_transport(setup: ProviderSetup, before) -> None:
    """dnsdist counted both queries (A and AAAA) on the expected listener, HTTP version and method only."""
    if setup.transport is None:
        return
    transport = setup.transport
    after = setup.frontend_stats()[transport.listener]
    changes = {column: after[column] - before[transport.listener][column] for column in after}
    other_version = "HTTP/1" if transport.http_version == "HTTP/2" else "HTTP/2"
    other_method = "GET" if transport.method == "POST" else "POST"
    assert (changes[transport.http_version], changes[other_version], changes[transport.method],
            changes[other_method], changes["Valid"]) == (2, 0, 2, 0, 2), \
        f"{setup.kind}: dnsdist counted {changes} on {transport.listener}"


def assert_no_secret_in_output(proxy) -> None:
    output = proxy.process.stdout_text() + proxy.process.stderr_text()
    for secret in SECRETS:
        assert secret not in output, "a credential shows up in ipdirect's output"


@pytest.mark.parametrize("kind", PROVIDER_KINDS)
def test_provider_resolves_an_ipv4_name_and_the_proxy_reaches_that_origin(kind, provider_setup, start_ipdirect,
                                                                           network):
    setup = provider_setup(kind)
    name = f"v4.{kind}.formats.test"
    setup.set_addresses(name, a=(LOOPBACK,), ttl=FORMAT_TTL)
    own = start_resolving(start_ipdirect, setup)
    before = frontend_snapshot(setup)

    authority = network.plain_authority(name)
    response = fetch(own, network.plain_url("/echo", name), authority)

    assert response.status == 200, response.describe()
    assert response.text.startswith(f"host={authority} ")
    own.wait_for_access_log(f" target={authority} ", f" upstream={LOOPBACK}:{network.nginx_http_port} ",
                            f" source={kind} ", " status=200")
    assert_asked_once_per_type(setup, name)
    assert_transport(setup, before)
    assert_no_secret_in_output(own)
    assert_resolves_with_ttl(own, name, {LOOPBACK}, kind, FORMAT_TTL)


@pytest.mark.parametrize("kind", PROVIDER_KINDS)
def test_provider_resolves_an_ipv6_only_name_and_the_proxy_connects_over_ipv6(kind, provider_setup,
                                                                               start_ipdirect, ipv6_origin):
    setup = provider_setup(kind)
    name = f"v6.{kind}.formats.test"
    setup.set_addresses(name, aaaa=(IPV6_LOOPBACK,))
    own = start_resolving(start_ipdirect, setup)
    before = frontend_snapshot(setup)

    authority = ipv6_origin.authority(name)
    response = fetch(own, ipv6_origin.url(name, "/"), authority)

    assert response.status == 200, response.describe()
    assert response.text == f"{ANSWER_PREFIX} host={authority} client={IPV6_LOOPBACK}\n"
    own.wait_for_access_log(f" target={authority} ", f" upstream={ipv6_origin.upstream} ", f" source={kind} ",
                            " status=200")
    assert_asked_once_per_type(setup, name)
    assert_transport(setup, before)


@pytest.mark.parametrize("kind", ["unbound-get", "tencent-token"])
def test_a_provider_without_its_own_ca_file_trusts_the_cas_of_the_tls_section(kind, provider_setup,
                                                                              start_ipdirect, network):
    """docs/configuration.md, `[[resolver.httpdns]] ca_file`: "PEM file of CAs trusted for this endpoint instead of
    those set in [tls]"; the shared configuration's `[tls] ca_file` is the test CA that issued every resolver's
    certificate."""
    setup = provider_setup(kind)
    setup.provider = replace(setup.provider, ca_file=None)
    name = f"tls-section.{kind}.formats.test"
    setup.set_addresses(name, a=(LOOPBACK,))
    own = start_resolving(start_ipdirect, setup)

    authority = network.plain_authority(name)
    response = fetch(own, network.plain_url("/echo", name), authority)

    assert response.status == 200, response.describe()
    own.wait_for_access_log(f" target={authority} ", f" source={kind} ", " status=200")


def test_doh_follows_the_cname_chain_in_the_answer_and_keeps_the_smallest_ttl(provider_setup, start_ipdirect,
                                                                              network, unbound_doh):
    setup = provider_setup("unbound-get")
    own = start_resolving(start_ipdirect, setup)

    authority = network.plain_authority(CHAIN_NAME)
    response = fetch(own, network.plain_url("/echo", CHAIN_NAME), authority)

    assert response.status == 200, response.describe()
    assert response.text.startswith(f"host={authority} ")
    own.wait_for_access_log(f" target={authority} ", f" upstream={LOOPBACK}:{network.nginx_http_port} ",
                            " source=unbound-get ", " status=200")
    assert_asked_once_per_type(setup, CHAIN_NAME)
    assert unbound_doh.query_count(CHAIN_TARGET) == 0, "the chain's target was asked for on its own"
    assert CHAIN_TARGET_TTL < CHAIN_CNAME_TTL
    assert_resolves_with_ttl(own, CHAIN_NAME, {LOOPBACK, IPV6_LOOPBACK}, "unbound-get", CHAIN_TARGET_TTL)


def test_json_follows_the_cname_the_stub_answers_first(provider_setup, start_ipdirect, network, httpdns_stub):
    setup = provider_setup("json-google")
    own = start_resolving(start_ipdirect, setup)

    authority = network.plain_authority(ALIAS_NAME)
    response = fetch(own, network.plain_url("/echo", ALIAS_NAME), authority)

    assert response.status == 200, response.describe()
    own.wait_for_access_log(f" target={authority} ", f" upstream={LOOPBACK}:{network.nginx_http_port} ",
                            " source=json-google ", " status=200")
    assert_asked_once_per_type(setup, ALIAS_NAME)
    assert httpdns_stub.count(name=RESOLVED_NAME) == 0, "the alias's target was asked for on its own"
    assert RESOLVED_TTL < ALIAS_TTL
    assert_resolves_with_ttl(own, ALIAS_NAME, {LOOPBACK, IPV6_LOOPBACK}, "json-google", RESOLVED_TTL)


def assert_resolves_with_ttl(own, name: str, addresses: set[str], source: str, ttl: int) -> None:
    """`ipdirect resolve` prints each address with the TTL of the answer: the smallest along the chain."""
    output = resolve_command(own, name)
    assert output.exit_code == 0, output.describe()
    assert {line.address for line in output.lines} == addresses, output.describe()
    for line in output.lines:
        assert line.source == source, output.describe()
        assert line.ttl is not None and ttl - TTL_SLACK_SECONDS <= line.ttl <= ttl, output.describe()

"""Per-domain providers (`domains`) and the client subnet (`client_subnet`) of `[[resolver.httpdns]]`.

Domains: a general provider (json on the shared stub) and a domain-limited one on a second stub of its own, so
each stub's request log shows exactly which provider was asked for which name. The general one is listed FIRST:
a name the limited provider matches must still go to it first, a name it does not match must never reach it,
and its empty (tencent, aliyun) or NXDOMAIN (doh) answer for a matching name must fall through to the general
provider instead of becoming a cached "no such name".

Client subnet: the stub keeps every request, so the test reads what ipdirect sent: the ECS option inside the
OPT record of each DoH query (RFC 7871 §6), `edns_client_subnet=` for json, `ip=` for aliyun and tencent
(decrypted here for the encrypted form, where it must not appear in clear). unbound is not used for this: the
harness's unbound answers from local-data, which is served before its subnetcache module sees a query.
"""

from dataclasses import replace
from urllib.parse import parse_qsl, urlsplit

import pytest

from harness.dnspod_cipher import DnspodCipher
from harness.dns_message import decode_query
from harness.httpdns_stubs import ALIYUN_ACCOUNT_ID, TENCENT_AES_KEY, TENCENT_DES_KEY, HttpdnsStub
from harness.ipdirect_proxy import ConfigAdditions
from harness.ports import LOOPBACK
from harness.resolution_checks import HTTPDNS_ONLY, NO_POOLING, event_lines, fetch, start_resolving
from harness.resolver_config import HttpdnsProvider, httpdns_sections

LIMITED_DOMAINS = ("*.limited.test",)
# RFC 7871 FAMILY numbers.
ECS_IPV4, ECS_IPV6 = 1, 2
ECS_SUBNET = "203.0.113.0/24"
ECS_NETWORK = "203.0.113.0"


@pytest.fixture(scope="module")
def limited_stub_server():
    stub = HttpdnsStub().start()
    yield stub
    stub.stop()


@pytest.fixture
def limited_stub(limited_stub_server) -> HttpdnsStub:
    limited_stub_server.reset()
    yield limited_stub_server
    limited_stub_server.reset()


def general_provider(stub: HttpdnsStub) -> HttpdnsProvider:
    return HttpdnsProvider("general", "json", stub.url("json-google"), [stub.bootstrap])


def limited_provider(stub: HttpdnsStub, format: str) -> HttpdnsProvider:
    """A provider limited to `*.limited.test`, of `format` (tencent, aliyun or doh) on `stub`."""
    if format == "aliyun":
        return HttpdnsProvider("limited", "aliyun", stub.url("aliyun"), account_id=ALIYUN_ACCOUNT_ID,
                               domains=LIMITED_DOMAINS)
    return HttpdnsProvider("limited", format, stub.url(format), [stub.bootstrap], domains=LIMITED_DOMAINS)


def start_with(start_ipdirect, *providers: HttpdnsProvider):
    return start_ipdirect(ConfigAdditions(proxy_keys=dict(NO_POOLING),
                                          resolver_keys={"order": list(HTTPDNS_ONLY)},
                                          sections=httpdns_sections(*providers)))


def fetch_ok(proxy, network, name: str, source: str) -> None:
    authority = network.plain_authority(name)
    response = fetch(proxy, network.plain_url("/echo", name), authority)
    assert response.status == 200, response.describe()
    proxy.wait_for_access_log(f" target={authority} ", f" source={source} ", " status=200")


# Per-domain providers -------------------------------------------------------------------------------------------
def test_a_name_in_a_limited_providers_domains_goes_to_it_before_general_providers_listed_earlier(
        httpdns_stub, limited_stub, start_ipdirect, network):
    name = "www.limited.test"
    # Both could answer; only the order decides.
    httpdns_stub.set_record(name, a=(LOOPBACK,))
    limited_stub.set_record(name, a=(LOOPBACK,))
    proxy = start_with(start_ipdirect, general_provider(httpdns_stub), limited_provider(limited_stub, "tencent"))

    fetch_ok(proxy, network, name, "limited")

    assert limited_stub.count("tencent", name) == 1
    assert httpdns_stub.count(name=name) == 0, "the general provider was asked for a name the limited one answered"


def test_a_name_outside_the_domains_never_reaches_the_limited_provider(httpdns_stub, limited_stub,
                                                                        start_ipdirect, network):
    # `*.limited.test` does not cover limited.test itself.
    names = ("www.general.test", "limited.test")
    for name in names:
        httpdns_stub.set_record(name, a=(LOOPBACK,))
        limited_stub.set_record(name, a=(LOOPBACK,))
    # Listed first: only its domains keep it from answering these names.
    proxy = start_with(start_ipdirect, limited_provider(limited_stub, "tencent"), general_provider(httpdns_stub))

    for name in names:
        fetch_ok(proxy, network, name, "general")
        assert httpdns_stub.count("json", name) == 2, f"general: A and AAAA for {name}"
    missing = "missing.general.test"
    response = fetch(proxy, network.plain_url("/", missing), network.plain_authority(missing))
    assert response.status == 502, response.describe()

    assert limited_stub.count() == 0, [request.target for request in limited_stub.state.requests()]


@pytest.mark.parametrize("format", ("tencent", "aliyun", "doh"))
def test_a_limited_providers_empty_or_nxdomain_answer_falls_through_and_is_not_cached(
        format, httpdns_stub, limited_stub, start_ipdirect, network):
    name = f"not-on-account.{format}.limited.test"
    httpdns_stub.set_record(name, a=(LOOPBACK,))
    limited_stub.remove(name)
    proxy = start_with(start_ipdirect, limited_provider(limited_stub, format), general_provider(httpdns_stub))

    fetch_ok(proxy, network, name, "general")
    # A cached "no such name" from the limited provider would answer this one with an error.
    fetch_ok(proxy, network, name, "cache:general")

    assert limited_stub.count(format, name) >= 1
    assert httpdns_stub.count("json", name) == 2
    assert [line for line in event_lines(proxy, "httpdns_fall_through")
            if " provider=limited " in line and f" name={name} " in line], proxy.stderr_since_mark()


def test_a_limited_providers_empty_answer_is_cached_when_no_other_source_answers(limited_stub, start_ipdirect,
                                                                                   network):
    name = "gone.tencent.limited.test"
    limited_stub.remove(name)
    proxy = start_with(start_ipdirect, limited_provider(limited_stub, "tencent"))

    for _ in range(3):
        response = fetch(proxy, network.plain_url("/", name), network.plain_authority(name))
        assert response.status == 502, response.describe()
    # One query for the first request; the other two are answered by the cached negative answer.
    assert limited_stub.count("tencent", name) == 1, [request.target for request in limited_stub.state.requests()]


# Client subnet --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("subnet, family, prefix, address", [
    pytest.param("203.0.113.0/24", ECS_IPV4, 24, bytes([203, 0, 113]), id="v4-24"),
    pytest.param("198.51.100.128/25", ECS_IPV4, 25, bytes([198, 51, 100, 128]), id="v4-25"),
    pytest.param("2001:db8:1234:5600::/56", ECS_IPV6, 56, bytes.fromhex("20010db8123456"), id="v6-56"),
    pytest.param("0.0.0.0/0", ECS_IPV4, 0, b"", id="v4-0"),
])
@pytest.mark.parametrize("method", ("get", "post"))
def test_doh_queries_carry_the_client_subnet_as_an_ecs_option(subnet, family, prefix, address, method,
                                                              httpdns_stub, start_ipdirect, network):
    name = "ecs.doh.test"
    httpdns_stub.set_record(name, a=(LOOPBACK,))
    provider = HttpdnsProvider("doh-ecs", "doh", httpdns_stub.url("doh"), [httpdns_stub.bootstrap],
                               method=method, client_subnet=subnet)
    proxy = start_with(start_ipdirect, provider)

    fetch_ok(proxy, network, name, "doh-ecs")

    queries = [decode_query(request.message) for request in httpdns_stub.state.requests("doh")
               if request.name == name]
    assert sorted(query.type for query in queries) == ["A", "AAAA"]
    for query in queries:
        assert query.opt_records == 1
        option = query.client_subnet()
        assert option is not None, f"no ECS option in {query}"
        assert (option.family, option.source_prefix, option.scope_prefix, option.address) \
            == (family, prefix, 0, address)


def test_json_queries_carry_the_client_subnet_as_edns_client_subnet(httpdns_stub, start_ipdirect, network):
    name = "ecs.json.test"
    httpdns_stub.set_record(name, a=(LOOPBACK,))
    provider = replace(general_provider(httpdns_stub), client_subnet=ECS_SUBNET)
    proxy = start_with(start_ipdirect, provider)

    fetch_ok(proxy, network, name, "general")

    parameters = [dict(parse_qsl(urlsplit(request.target).query)) for request in httpdns_stub.state.requests("json")
                  if request.name == name]
    assert len(parameters) == 2
    assert all(query.get("edns_client_subnet") == ECS_SUBNET for query in parameters), parameters


# The encrypted forms' keys, to read `ip=` back.
CIPHERS = {"tencent-des": DnspodCipher("des", TENCENT_DES_KEY), "tencent-aes": DnspodCipher("aes", TENCENT_AES_KEY)}


@pytest.mark.parametrize("kind", ("aliyun", "aliyun-signed-env", "tencent", "tencent-des", "tencent-aes"))
def test_aliyun_and_tencent_get_the_subnets_address_as_ip(kind, provider_setup, start_ipdirect, network):
    setup = provider_setup(kind)
    setup = replace(setup, provider=replace(setup.provider, client_subnet=ECS_SUBNET))
    name = f"ecs.{kind}.test"
    setup.set_addresses(name, a=(LOOPBACK,))
    proxy = start_resolving(start_ipdirect, setup)

    fetch_ok(proxy, network, name, kind)

    targets = setup.stub_targets(name)
    assert len(targets) == 1, targets
    sent = dict(parse_qsl(urlsplit(targets[0]).query))["ip"]
    if kind in CIPHERS:
        assert ECS_NETWORK not in targets[0], f"the encrypted form sent ip in clear: {targets[0]}"
        assert CIPHERS[kind].decrypt_hex(sent).decode() == ECS_NETWORK
    else:
        assert sent == ECS_NETWORK

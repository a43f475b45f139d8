"""The resolver fixtures checked directly, without ipdirect: unbound and dnsdist as RFC 8484 servers (through
curl), the HTTPDNS stub in each format and mode (through requests), and the config blocks that point
ipdirect at them."""

import subprocess
import time
import tomllib

import pytest
import requests

from harness.dns_message import RCODE_NAME_ERROR, RCODE_NO_ERROR
from harness.dnspod_cipher import DnspodCipher
from harness.doh_client import query_doh
from harness.httpdns_formats import GARBAGE_BODY, aliyun_signature
from harness.httpdns_state import PRIVATE_ADDRESSES, StubMode
from harness.httpdns_stubs import (ALIYUN_ACCOUNT_ID, ALIYUN_SECRET, ALIYUN_SIGNED_ACCOUNT_ID, TENCENT_AES_KEY,
                                   TENCENT_AES_KEY_ID, TENCENT_DES_KEY, TENCENT_DES_KEY_ID, TENCENT_TOKEN)
from harness.ipdirect_proxy import ConfigAdditions, ipdirect_config_text
from harness.network import Network
from harness.resolver_config import HttpdnsProvider, httpdns_sections
from harness.resolver_records import (ALIAS_NAME, ALIAS_TTL, CHAIN_CNAME_TTL, CHAIN_NAME, CHAIN_TARGET,
                                      CHAIN_TARGET_TTL, IPV4_ONLY_NAME, RESOLVED_NAME, RESOLVED_TTL)

pytestmark = pytest.mark.harness

REQUEST_TIMEOUT_SECONDS = 10
# The slow mode's delay in these checks: long enough to measure, short enough not to slow the suite.
SLOW_SECONDS = 1.0


def answer(exchange, record_type="A"):
    response = exchange.response
    return response.rcode, response.addresses(record_type)


# unbound --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("record_type, address", [("A", "127.0.0.1"), ("AAAA", "::1")])
def test_unbound_answers_its_local_data_over_http2(unbound_doh, certificates, method, record_type, address):
    exchange = query_doh(unbound_doh.url, certificates.ca_file, RESOLVED_NAME, record_type, "2", method)
    assert exchange.http_version == "2", exchange.describe()
    response = exchange.response
    assert (response.id, response.rcode, response.question) == (0, RCODE_NO_ERROR, (RESOLVED_NAME, record_type))
    assert [(record.name, record.type, record.ttl, record.data) for record in response.answers] \
        == [(RESOLVED_NAME, record_type, RESOLVED_TTL, address)]


def test_unbound_does_not_serve_http1_1(unbound_doh, certificates):
    """Seen: an empty reply, or HTTP/2 frames that curl reads as HTTP/0.9; never an HTTP/1.1 response."""
    exchange = query_doh(unbound_doh.url, certificates.ca_file, RESOLVED_NAME, "A", "1.1")
    assert exchange.curl_exit_code != 0 and exchange.status == 0, exchange.describe()


@pytest.mark.parametrize("record_type, address", [("A", "127.0.0.1"), ("AAAA", "::1")])
def test_unbound_puts_the_whole_cname_chain_in_the_answer(unbound_doh, certificates, record_type, address):
    response = query_doh(unbound_doh.url, certificates.ca_file, CHAIN_NAME, record_type).response
    assert [(record.name, record.type, record.ttl, record.data) for record in response.answers] == [
        (CHAIN_NAME, "CNAME", CHAIN_CNAME_TTL, CHAIN_TARGET), (CHAIN_TARGET, record_type, CHAIN_TARGET_TTL, address)]


@pytest.mark.parametrize("name", ["unknown.test", "nothing.chain.test", "example.com"])
def test_unbound_answers_every_other_name_nxdomain_from_memory(unbound_doh, certificates, name):
    assert answer(query_doh(unbound_doh.url, certificates.ca_file, name)) == (RCODE_NAME_ERROR, [])


def test_unbound_answers_a_name_without_that_type_with_no_data(unbound_doh, certificates):
    assert answer(query_doh(unbound_doh.url, certificates.ca_file, IPV4_ONLY_NAME, "AAAA"), "AAAA") \
        == (RCODE_NO_ERROR, [])


@pytest.mark.parametrize("name", ["changed.test", "changed.chain.test"])
def test_unbound_records_change_while_it_runs_and_reset_restores_them(unbound_doh, certificates, name):
    ca_file = certificates.ca_file
    unbound_doh.set_record(name, "A", ["127.0.0.2", "127.0.0.3"], 5)
    response = query_doh(unbound_doh.url, ca_file, name).response
    assert sorted((record.data, record.ttl) for record in response.answers) == [("127.0.0.2", 5), ("127.0.0.3", 5)]
    unbound_doh.set_record(name, "AAAA", "::1", 7)
    unbound_doh.set_record(name, "A", "127.0.0.4", 9)
    assert [(r.data, r.ttl) for r in query_doh(unbound_doh.url, ca_file, name).response.answers] == [("127.0.0.4", 9)]
    assert answer(query_doh(unbound_doh.url, ca_file, name, "AAAA"), "AAAA") == (RCODE_NO_ERROR, ["::1"])
    unbound_doh.remove(name)
    assert answer(query_doh(unbound_doh.url, ca_file, name)) == (RCODE_NAME_ERROR, [])
    unbound_doh.set_record(RESOLVED_NAME, "A", "127.0.0.9", 1)
    unbound_doh.reset()
    assert answer(query_doh(unbound_doh.url, ca_file, name)) == (RCODE_NAME_ERROR, [])
    assert answer(query_doh(unbound_doh.url, ca_file, RESOLVED_NAME)) == (RCODE_NO_ERROR, ["127.0.0.1"])


def test_unbound_counts_each_query_it_receives(unbound_doh, certificates):
    for _ in range(3):
        query_doh(unbound_doh.url, certificates.ca_file, RESOLVED_NAME, "A")
    query_doh(unbound_doh.url, certificates.ca_file, RESOLVED_NAME.upper(), "AAAA", method="POST")
    assert unbound_doh.query_count(RESOLVED_NAME) == 4
    assert unbound_doh.query_count(RESOLVED_NAME, "AAAA") == 1
    assert unbound_doh.query_count(IPV4_ONLY_NAME) == 0
    unbound_doh.reset_counts()
    assert unbound_doh.query_count(RESOLVED_NAME) == 0


# dnsdist --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("http_version", ["1.1", "2"])
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_dnsdist_serves_doh_over_both_http_versions_from_unbound(dnsdist_doh, unbound_doh, certificates,
                                                                 http_version, method):
    exchange = query_doh(dnsdist_doh.url, certificates.ca_file, RESOLVED_NAME, "A", http_version, method)
    assert exchange.http_version == http_version, exchange.describe()
    assert answer(exchange) == (RCODE_NO_ERROR, ["127.0.0.1"])
    assert unbound_doh.query_count(RESOLVED_NAME, "A") == 1


def counter_changes(before, after, listener):
    return {column: after[listener][column] - before[listener][column] for column in after[listener]}


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_dnsdist_plain_listener_serves_cleartext_http1_1_and_counts_it(dnsdist_doh, unbound_doh, certificates,
                                                                       method):
    assert dnsdist_doh.plain_url.startswith("http://dnsdist.test:")
    before = dnsdist_doh.frontend_stats()
    exchange = query_doh(dnsdist_doh.plain_url, certificates.ca_file, RESOLVED_NAME, "AAAA", "1.1", method)
    assert exchange.http_version == "1.1", exchange.describe()
    assert answer(exchange, "AAAA") == (RCODE_NO_ERROR, ["::1"])
    after = dnsdist_doh.frontend_stats()
    other = "GET" if method == "POST" else "POST"
    assert counter_changes(before, after, dnsdist_doh.plain_listener) \
        == {"HTTP": 1, "HTTP/1": 1, "HTTP/2": 0, method: 1, other: 0, "Bad": 0, "Errors": 0, "Valid": 1}
    assert set(counter_changes(before, after, dnsdist_doh.tls_listener).values()) == {0}
    assert unbound_doh.query_count(RESOLVED_NAME, "AAAA") == 1


def test_dnsdist_counts_http2_queries_on_its_tls_listener(dnsdist_doh, certificates):
    before = dnsdist_doh.frontend_stats()
    assert query_doh(dnsdist_doh.url, certificates.ca_file, RESOLVED_NAME, "A", "2").http_version == "2"
    changes = counter_changes(before, dnsdist_doh.frontend_stats(), dnsdist_doh.tls_listener)
    assert (changes["HTTP/2"], changes["HTTP/1"], changes["GET"], changes["Valid"]) == (1, 0, 1, 1)


def test_dnsdist_passes_chains_nxdomain_and_runtime_changes_through(dnsdist_doh, unbound_doh, certificates):
    ca_file = certificates.ca_file
    assert answer(query_doh(dnsdist_doh.url, ca_file, CHAIN_NAME, "AAAA", "1.1"), "AAAA") == (RCODE_NO_ERROR, ["::1"])
    assert answer(query_doh(dnsdist_doh.url, ca_file, "unknown.test")) == (RCODE_NAME_ERROR, [])
    unbound_doh.set_record("late.test", "A", "127.0.0.5", 30)
    assert answer(query_doh(dnsdist_doh.url, ca_file, "late.test", "A", "1.1")) == (RCODE_NO_ERROR, ["127.0.0.5"])


def test_resolver_processes_touch_nothing_but_loopback(unbound_doh, dnsdist_doh, certificates):
    for url in (unbound_doh.url, dnsdist_doh.url):
        query_doh(url, certificates.ca_file, "not-local.example.com")
    pids = {str(unbound_doh.process.pid), str(dnsdist_doh.process.pid)}
    sockets = subprocess.run(["ss", "-tunapH"], capture_output=True, text=True, check=True).stdout.splitlines()
    theirs = [line for line in sockets if any(f"pid={pid}," in line for pid in pids)]
    assert theirs, "ss shows no sockets of unbound or dnsdist"
    for line in theirs:
        local, peer = line.split()[4:6]
        for address in (local, peer):
            host = address.rsplit(":", 1)[0].strip("[]")
            assert host in ("*", "0.0.0.0", "::", "::1") or host.startswith("127."), line
    log = unbound_doh.log_path.read_text()
    assert "root-servers" not in log and "error: udp connect" not in log


# HTTPDNS stub: json ---------------------------------------------------------------------------------------------
def stub_get(stub, kind, path="", params=None, headers=None, session=None):
    client = session or requests
    return client.get(stub.address_url(kind) + path, params=params, headers=headers,
                      timeout=REQUEST_TIMEOUT_SECONDS, proxies={"http": None, "https": None})


def json_query(stub, name, record_type="A", kind="json-google"):
    response = stub_get(stub, kind, params={"name": name, "type": record_type},
                        headers={"Accept": "application/dns-json"})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("kind", ["json-google", "json-cloudflare"])
@pytest.mark.parametrize("record_type, type_number, address", [("A", 1, "127.0.0.1"), ("AAAA", 28, "::1")])
def test_json_stub_answers_like_google_and_cloudflare(httpdns_stub, kind, record_type, type_number, address):
    assert json_query(httpdns_stub, RESOLVED_NAME, record_type, kind) == {
        "Status": 0, "TC": False, "RD": True, "RA": True, "AD": False, "CD": False,
        "Question": [{"name": f"{RESOLVED_NAME}.", "type": type_number}],
        "Answer": [{"name": f"{RESOLVED_NAME}.", "type": type_number, "TTL": RESOLVED_TTL, "data": address}]}


def test_json_stub_puts_cnames_first_and_says_nxdomain_and_no_data(httpdns_stub):
    assert json_query(httpdns_stub, ALIAS_NAME, "1")["Answer"] == [
        {"name": f"{ALIAS_NAME}.", "type": 5, "TTL": ALIAS_TTL, "data": f"{RESOLVED_NAME}."},
        {"name": f"{RESOLVED_NAME}.", "type": 1, "TTL": RESOLVED_TTL, "data": "127.0.0.1"}]
    unknown = json_query(httpdns_stub, "unknown.test")
    assert unknown["Status"] == 3 and "Answer" not in unknown
    no_data = json_query(httpdns_stub, IPV4_ONLY_NAME, "AAAA")
    assert no_data["Status"] == 0 and "Answer" not in no_data


def test_cloudflare_json_needs_its_media_type(httpdns_stub):
    response = stub_get(httpdns_stub, "json-cloudflare", params={"name": RESOLVED_NAME, "type": "A"})
    assert response.status_code == 415


# HTTPDNS stub: aliyun -------------------------------------------------------------------------------------------
def aliyun(stub, account, name, query="4,6", signed=None, session=None):
    params = {"host": name, "query": query}
    if signed is not None:
        params.update(signed)
    return stub_get(stub, "aliyun", f"/{account}/{'d' if signed is None else 'sign_d'}", params, session=session)


def test_aliyun_signature_is_the_vendors_own_example():
    assert aliyun_signature("www.aliyun.com", "IAmASecret", 1534316400) == "60c71e98b6d7fcbb366243e224eab457"


def test_aliyun_stub_answers_both_families_and_only_those_asked(httpdns_stub):
    assert aliyun(httpdns_stub, ALIYUN_ACCOUNT_ID, RESOLVED_NAME).json() == {
        "host": RESOLVED_NAME, "ips": ["127.0.0.1"], "ipsv6": ["::1"], "ttl": RESOLVED_TTL, "origin_ttl": RESOLVED_TTL}
    assert aliyun(httpdns_stub, ALIYUN_ACCOUNT_ID, RESOLVED_NAME, "4").json() == {
        "host": RESOLVED_NAME, "ips": ["127.0.0.1"], "ttl": RESOLVED_TTL, "origin_ttl": RESOLVED_TTL}
    assert aliyun(httpdns_stub, ALIYUN_ACCOUNT_ID, ALIAS_NAME, "6").json()["ipsv6"] == ["::1"]
    unknown = aliyun(httpdns_stub, ALIYUN_ACCOUNT_ID, "unknown.test").json()
    assert (unknown["ips"], unknown["ipsv6"]) == ([], [])


def signature_parameters(name, expiry, secret=ALIYUN_SECRET):
    return {"t": str(expiry), "s": aliyun_signature(name, secret, expiry)}


@pytest.mark.parametrize("account, name_signed, secret, expiry_offset, code", [
    ("999", RESOLVED_NAME, ALIYUN_SECRET, 600, "InvalidAccount"),
    (ALIYUN_SIGNED_ACCOUNT_ID, RESOLVED_NAME, "wrong-secret", 600, "SignatureMismatch"),
    (ALIYUN_SIGNED_ACCOUNT_ID, "other.test", ALIYUN_SECRET, 600, "SignatureMismatch"),
    (ALIYUN_SIGNED_ACCOUNT_ID, RESOLVED_NAME, ALIYUN_SECRET, -60, "SignatureExpired"),
    (ALIYUN_SIGNED_ACCOUNT_ID, RESOLVED_NAME, ALIYUN_SECRET, 24 * 3600 + 600, "SignatureExpired"),
], ids=["unknown-account", "wrong-secret", "signed-other-name", "expired", "more-than-24h-ahead"])
def test_aliyun_stub_refuses_bad_signatures_with_the_services_codes(httpdns_stub, account, name_signed, secret,
                                                                    expiry_offset, code):
    expiry = int(time.time()) + expiry_offset
    response = aliyun(httpdns_stub, account, RESOLVED_NAME,
                      signed={"t": str(expiry), "s": aliyun_signature(name_signed, secret, expiry)})
    assert (response.status_code, response.json()) == (403, {"code": code})


def test_aliyun_stub_signed_account_takes_signed_requests_only(httpdns_stub):
    expiry = int(time.time()) + 24 * 3600
    signed = aliyun(httpdns_stub, ALIYUN_SIGNED_ACCOUNT_ID, RESOLVED_NAME,
                    signed=signature_parameters(RESOLVED_NAME, expiry))
    assert signed.status_code == 200 and signed.json()["ips"] == ["127.0.0.1"]
    unsigned = aliyun(httpdns_stub, ALIYUN_SIGNED_ACCOUNT_ID, RESOLVED_NAME)
    assert (unsigned.status_code, unsigned.json()) == (403, {"code": "UnsignedInterfaceDisabled"})
    assert aliyun(httpdns_stub, "999", RESOLVED_NAME).json() == {"code": "InvalidAccount"}


# HTTPDNS stub: tencent ------------------------------------------------------------------------------------------
def tencent(stub, params, session=None):
    response = stub_get(stub, "tencent", params=params, session=session)
    return response.status_code, response.text


@pytest.mark.parametrize("params, body", [
    ({"dn": RESOLVED_NAME, "ttl": "1", "type": "addrs"}, f"127.0.0.1,{RESOLVED_TTL}-::1,{RESOLVED_TTL}"),
    ({"dn": RESOLVED_NAME, "ttl": "1"}, f"127.0.0.1,{RESOLVED_TTL}"),
    ({"dn": RESOLVED_NAME, "ttl": "1", "type": "AAAA"}, f"::1,{RESOLVED_TTL}"),
    ({"dn": RESOLVED_NAME}, "127.0.0.1"),
    ({"dn": IPV4_ONLY_NAME, "ttl": "1", "type": "addrs"}, f"127.0.0.1,{RESOLVED_TTL}-0"),
    ({"dn": ALIAS_NAME, "ttl": "1"}, f"127.0.0.1,{RESOLVED_TTL}"),
    ({"dn": "unknown.test", "ttl": "1", "type": "addrs"}, ""),
], ids=["addrs", "a-only", "aaaa", "no-ttl", "no-ipv6", "cname-flattened", "unknown"])
def test_tencent_stub_answers_the_d_plus_text_format(httpdns_stub, params, body):
    assert tencent(httpdns_stub, params) == (200, body)


def test_tencent_stub_cipher_matches_the_clients_test_vectors():
    des, aes = DnspodCipher("des", b"ipdirect"), DnspodCipher("aes", b"0123456789abcdef")
    assert des.encrypt_hex(b"www.example.com") == "5c17c917db033f2eaec316b9c7a5fb82"
    assert aes.encrypt_hex(b"www.example.com", bytes(range(16))) \
        == "000102030405060708090a0b0c0d0e0f" + "c76e0a8818928ce7aa8b99f52a5d3fff"
    assert des.decrypt_hex("465d2632f897cd4ab7c0c747b9d2be8d03d8bc974983c48b03f0801f139b77e1") \
        == b"93.184.216.34;93.184.216.35,600"


@pytest.mark.parametrize("algorithm, key_id, key", [("des", TENCENT_DES_KEY_ID, TENCENT_DES_KEY),
                                                    ("aes", TENCENT_AES_KEY_ID, TENCENT_AES_KEY)])
def test_tencent_stub_speaks_the_encrypted_form(httpdns_stub, algorithm, key_id, key):
    cipher = DnspodCipher(algorithm, key)
    status, body = tencent(httpdns_stub, {"dn": cipher.encrypt_hex(RESOLVED_NAME.encode()), "id": key_id,
                                          "alg": algorithm, "ttl": "1", "type": "addrs"})
    assert status == 200
    assert cipher.decrypt_hex(body) == f"127.0.0.1,{RESOLVED_TTL}-::1,{RESOLVED_TTL}".encode()
    assert httpdns_stub.count("tencent", RESOLVED_NAME, "AAAA") == 1
    assert tencent(httpdns_stub, {"dn": cipher.encrypt_hex(b"x.test"), "id": key_id, "alg": "none"})[0] == 403
    assert tencent(httpdns_stub, {"dn": cipher.encrypt_hex(b"x.test"), "id": "1", "alg": algorithm})[0] == 403
    assert tencent(httpdns_stub, {"dn": "not hex", "id": key_id, "alg": algorithm})[0] == 400


def test_tls_stub_is_httpdns_test_and_requires_the_tencent_token(httpdns_tls_stub, certificates):
    url = httpdns_tls_stub.url("tencent")
    assert url.startswith("https://httpdns.test:")
    curl = subprocess.run(["curl", "--silent", "--show-error", "--noproxy", "*", "--max-time", "10",
                           "--cacert", str(certificates.ca_file),
                           "--resolve", f"httpdns.test:{httpdns_tls_stub.port}:127.0.0.1",
                           f"{url}?dn={RESOLVED_NAME}&ttl=1&type=addrs&token={TENCENT_TOKEN}"],
                          capture_output=True, text=True, timeout=20)
    assert curl.stdout == f"127.0.0.1,{RESOLVED_TTL}-::1,{RESOLVED_TTL}", curl.stderr
    with requests.Session() as session:
        session.trust_env = False
        session.verify = str(certificates.ca_file)
        assert tencent(httpdns_tls_stub, {"dn": RESOLVED_NAME, "ttl": "1"}, session)[0] == 403
        assert tencent(httpdns_tls_stub, {"dn": RESOLVED_NAME, "ttl": "1", "token": "wrong"}, session)[0] == 403
        assert json_query_over(session, httpdns_tls_stub)["Status"] == 0


def json_query_over(session, stub):
    return stub_get(stub, "json-google", params={"name": RESOLVED_NAME}, session=session).json()


# HTTPDNS stub: modes, counts, connections -----------------------------------------------------------------------
def ask_each_format(stub, name=RESOLVED_NAME):
    """One A+AAAA (or A) request per format; returns (format, status, body) for each."""
    replies = []
    for format_name, kind, path, params in [
        ("json", "json-google", "", {"name": name, "type": "A"}),
        ("aliyun", "aliyun", f"/{ALIYUN_ACCOUNT_ID}/d", {"host": name, "query": "4,6"}),
        ("tencent", "tencent", "", {"dn": name, "ttl": "1", "type": "addrs"}),
    ]:
        response = stub_get(stub, kind, path, params)
        replies.append((format_name, response.status_code, response.content))
    return replies


@pytest.mark.parametrize("mode, status", [(StubMode.garbage(), 200), (StubMode.http_error(), 503),
                                          (StubMode.http_error(500), 500)],
                         ids=["garbage", "http-503", "http-500"])
def test_stub_modes_apply_to_every_format_or_to_one(httpdns_stub, mode, status):
    httpdns_stub.set_mode(mode)
    for _, reply_status, body in ask_each_format(httpdns_stub):
        assert reply_status == status
        assert (body == GARBAGE_BODY) == (mode.kind == "garbage")
    httpdns_stub.set_mode(StubMode.normal(), "aliyun")
    replies = {format_name: (reply_status, body) for format_name, reply_status, body in ask_each_format(httpdns_stub)}
    assert replies["aliyun"][0] == 200 and b'"ips": ["127.0.0.1"]' in replies["aliyun"][1]
    assert replies["json"][0] == replies["tencent"][0] == status
    assert httpdns_stub.count(name=RESOLVED_NAME) == 6


def test_private_mode_answers_private_addresses_instead(httpdns_stub):
    httpdns_stub.set_mode(StubMode.private())
    private_v4, private_v6 = PRIVATE_ADDRESSES["A"], PRIVATE_ADDRESSES["AAAA"]
    assert json_query(httpdns_stub, RESOLVED_NAME)["Answer"][0]["data"] == private_v4
    assert aliyun(httpdns_stub, ALIYUN_ACCOUNT_ID, RESOLVED_NAME).json()["ipsv6"] == [private_v6]
    assert tencent(httpdns_stub, {"dn": IPV4_ONLY_NAME, "ttl": "1", "type": "addrs"})[1] \
        == f"{private_v4},{RESOLVED_TTL}-0"


def test_slow_mode_delays_only_its_format(httpdns_stub):
    httpdns_stub.set_mode(StubMode.slow(SLOW_SECONDS), "tencent")
    started = time.monotonic()
    assert json_query(httpdns_stub, RESOLVED_NAME)["Status"] == 0
    assert time.monotonic() - started < SLOW_SECONDS
    started = time.monotonic()
    assert tencent(httpdns_stub, {"dn": RESOLVED_NAME, "ttl": "1"}) == (200, f"127.0.0.1,{RESOLVED_TTL}")
    assert time.monotonic() - started >= SLOW_SECONDS


def test_stub_counts_by_format_name_and_type_and_resets(httpdns_stub):
    ask_each_format(httpdns_stub)
    json_query(httpdns_stub, RESOLVED_NAME, "AAAA")
    json_query(httpdns_stub, RESOLVED_NAME.upper() + ".", "AAAA", "json-cloudflare")
    assert httpdns_stub.count() == 5
    assert httpdns_stub.count("json", RESOLVED_NAME) == 3
    assert httpdns_stub.count("json", RESOLVED_NAME, "AAAA") == 2
    assert httpdns_stub.count("aliyun", RESOLVED_NAME, "AAAA") == 1
    assert httpdns_stub.count("tencent", "other.test") == 0
    assert httpdns_stub.state.requests("json")[-1].headers["accept"] == "application/dns-json"
    httpdns_stub.reset()
    assert httpdns_stub.count() == 0


def test_stub_records_change_at_runtime(httpdns_stub):
    httpdns_stub.set_record("new.test", a=["127.0.0.7"], ttl=5)
    assert tencent(httpdns_stub, {"dn": "new.test", "ttl": "1"}) == (200, "127.0.0.7,5")
    httpdns_stub.remove(RESOLVED_NAME)
    assert json_query(httpdns_stub, RESOLVED_NAME)["Status"] == 3
    httpdns_stub.reset()
    assert json_query(httpdns_stub, RESOLVED_NAME)["Status"] == 0
    assert json_query(httpdns_stub, "new.test")["Status"] == 3


def test_stub_keeps_connections_alive(httpdns_stub):
    with requests.Session() as session:
        session.trust_env = False
        for _ in range(5):
            assert tencent(httpdns_stub, {"dn": RESOLVED_NAME, "ttl": "1"}, session)[0] == 200
    assert httpdns_stub.connection_count == 1


# Configuration blocks -------------------------------------------------------------------------------------------
def test_provider_blocks_and_resolver_keys_render_as_valid_toml(tmp_path, unbound_doh, httpdns_stub, certificates):
    providers = [
        HttpdnsProvider("unbound", "doh", unbound_doh.url, [unbound_doh.bootstrap], certificates.ca_file,
                        timeout_ms=500, method="post"),
        HttpdnsProvider("aliyun", "aliyun", httpdns_stub.url("aliyun"), account_id=ALIYUN_SIGNED_ACCOUNT_ID,
                        secret_env="E2E_ALIYUN_SECRET"),
        HttpdnsProvider("dnspod", "tencent", httpdns_stub.url("tencent"), secret_file=tmp_path / "key",
                        key_id=TENCENT_DES_KEY_ID, alg="des"),
    ]
    network = Network(1, 2, 3, 4, 5, 6, 7, "127.0.0.1:53", {"a.test": ["127.0.0.1"]})
    additions = ConfigAdditions(resolver_keys={"order": ["hosts", "httpdns"], "serve_stale": 0},
                                access_keys={"allow_private_upstreams": False},
                                sections=httpdns_sections(*providers))
    config = tomllib.loads(ipdirect_config_text(["127.0.0.1:1"], network, certificates.ca_file,
                                                additions=additions))
    assert config["access"] == {"connect_ports": network.connect_ports, "allow_private_upstreams": False}
    assert tomllib.loads(ipdirect_config_text(["127.0.0.1:1"], network, certificates.ca_file))["access"] \
        == {"connect_ports": network.connect_ports, "allow_private_upstreams": True}
    resolver = config["resolver"]
    assert resolver["order"] == ["hosts", "httpdns"] and resolver["serve_stale"] == 0
    assert resolver["system_nameservers"] == ["127.0.0.1:53"]
    assert resolver["httpdns"] == [
        {"name": "unbound", "format": "doh", "url": unbound_doh.url, "bootstrap": ["127.0.0.1"],
         "ca_file": str(certificates.ca_file), "timeout_ms": 500, "method": "post"},
        {"name": "aliyun", "format": "aliyun", "url": httpdns_stub.url("aliyun"),
         "account_id": ALIYUN_SIGNED_ACCOUNT_ID, "secret_env": "E2E_ALIYUN_SECRET"},
        {"name": "dnspod", "format": "tencent", "url": httpdns_stub.url("tencent"),
         "secret_file": str(tmp_path / "key"), "key_id": TENCENT_DES_KEY_ID, "alg": "des"},
    ]

"""The DNS listener (docs/behaviour.md "Use it as the machine's resolver"): `dig` against ipdirect gets the addresses
the HTTPDNS provider (a real unbound over RFC 8484) gives, from the same cache as proxied requests, with TTLs capped;
the wire rules of RFC 1035, 6891 and 7766 (truncation to whole records with TC and the full answer over TCP, OPT
only when asked, BADVERS, the DO bit); names that only mean something locally never reach the provider; clients
outside `[access] clients` are refused; and messages that are not queries are dropped while the daemon keeps
answering."""

import socket
import time

import pytest
import requests

from harness.dns_listener import dig, dns_section, listener_port, start_listening_ipdirect, wait_for_listener
from harness.ports import LOOPBACK
from harness.resolution_checks import start_resolving
from test_admin_metrics import scrape

PROVIDER = "unbound-get"
# More A records than fit in 512 octets (16 octets each after the question).
MANY_ADDRESSES = 40
MAX_TTL = 60
PROVIDER_TTL = 300
# More than the 64 queries one TCP connection may have in flight.
PIPELINED_QUERIES = 100
# How long a ranking probe of a refusing address may take to quarantine it.
PROBE_WAIT_SECONDS = 10


@pytest.fixture
def listener(provider_setup, start_ipdirect):
    """An ipdirect answering DNS on a free port from one unbound DoH provider; yields (port, setup, ipdirect)."""
    def start(**dns_keys):
        return start_listening_ipdirect(provider_setup, start_ipdirect, PROVIDER, **dns_keys)
    return start


def test_dig_gets_the_providers_addresses_once_from_the_provider_then_from_the_cache(listener):
    port, setup, _ = listener()
    name = "answered.dns-listener.test"
    setup.set_addresses(name, a=("198.51.100.10", "198.51.100.11"), aaaa=("2001:db8::10",), ttl=PROVIDER_TTL)
    first = dig(port, name)
    assert first.status == "NOERROR", first.text
    assert sorted(first.addresses) == ["198.51.100.10", "198.51.100.11"], first.text
    assert all(ttl <= MAX_TTL for _, ttl, _, _ in first.records), first.text
    again = dig(port, name, "AAAA")
    assert again.addresses == ["2001:db8::10"], again.text
    assert setup.queries(name, "A") == 1


def test_a_name_without_aaaa_gets_nodata_with_an_soa_and_a_missing_name_nxdomain(listener):
    port, setup, _ = listener()
    name = "only-v4.dns-listener.test"
    setup.set_addresses(name, a=("198.51.100.20",))
    nodata = dig(port, name, "AAAA")
    assert nodata.status == "NOERROR" and nodata.addresses == [] and nodata.authority_types == ["SOA"], nodata.text
    missing = dig(port, "missing.dns-listener.test")
    assert missing.status == "NXDOMAIN" and missing.authority_types == ["SOA"], missing.text


def test_forty_addresses_truncate_at_512_octets_and_come_whole_over_tcp(listener):
    port, setup, _ = listener()
    name = "many.dns-listener.test"
    addresses = tuple(f"198.51.100.{index}" for index in range(1, MANY_ADDRESSES + 1))
    setup.set_addresses(name, a=addresses)
    small = dig(port, name, "A", "+bufsize=512", "+ignore")
    assert "tc" in small.flags, small.text
    assert 0 < len(small.addresses) < MANY_ADDRESSES, small.text
    whole = dig(port, name, "A", "+tcp")
    assert "tc" not in whole.flags and sorted(whole.addresses) == sorted(addresses), whole.text


def test_edns_rules_opt_only_when_asked_badvers_and_the_do_bit_echoed_without_ad(listener):
    port, setup, _ = listener()
    name = "edns.dns-listener.test"
    setup.set_addresses(name, a=("198.51.100.30",))
    plain = dig(port, name, "A", "+noedns")
    assert plain.status == "NOERROR" and not plain.has_opt, plain.text
    version = dig(port, name, "A", "+edns=1", "+noednsneg")
    assert version.status == "BADVERS" and version.has_opt, version.text
    dnssec = dig(port, name, "A", "+dnssec")
    assert "do" in dnssec.edns_flags and "ad" not in dnssec.flags, dnssec.text


@pytest.mark.parametrize("name, rtype", [
    ("printer", "A"),
    ("printer.local", "A"),
    ("nas.home.arpa", "AAAA"),
    ("5.1.168.192.in-addr.arpa", "PTR"),
    ("1.0.0.10.in-addr.arpa", "PTR"),
    ("hidden.onion", "A"),
])
def test_local_names_and_private_reverse_lookups_never_reach_the_provider(listener, name, rtype):
    port, setup, _ = listener()
    answer = dig(port, name, rtype)
    assert answer.status == "NXDOMAIN", answer.text
    assert setup.queries(name, rtype) == 0 and setup.queries(name, "A") == 0


def test_localhost_and_the_firefox_canary_are_answered_without_the_provider(listener):
    port, setup, _ = listener()
    assert dig(port, "localhost").addresses == ["127.0.0.1"]
    assert dig(port, "foo.localhost", "AAAA").addresses == ["::1"]
    canary = dig(port, "use-application-dns.net")
    assert canary.status == "NXDOMAIN", canary.text
    assert setup.queries("use-application-dns.net", "A") == 0


def test_other_types_are_refused_and_https_records_answered_empty_when_set_so(listener):
    port, setup, _ = listener(other_types="refuse", https_records="empty")
    name = "types.dns-listener.test"
    setup.set_addresses(name, a=("198.51.100.40",))
    assert dig(port, name, "MX").status == "REFUSED"
    https = dig(port, name, "HTTPS")
    assert https.status == "NOERROR" and https.records == [], https.text


def test_a_client_outside_access_clients_is_refused(provider_setup, start_ipdirect):
    setup = provider_setup(PROVIDER)
    port = listener_port()
    own = start_resolving(start_ipdirect, setup, extra_sections=dns_section(port),
                          access_keys={"clients": ["127.0.0.2/32"]})
    name = "acl.dns-listener.test"
    setup.set_addresses(name, a=("198.51.100.50",))
    refused = dig(port, name)
    assert refused.status == "REFUSED", refused.text
    allowed = dig(port, name, source="127.0.0.2")
    assert allowed.addresses == ["198.51.100.50"], allowed.text
    assert setup.queries(name, "A") == 1
    assert own.is_running()


def test_messages_that_are_not_queries_are_dropped_and_the_listener_keeps_answering(listener):
    port, setup, own = listener()
    garbage = [
        b"",
        b"\x12\x34",
        bytes.fromhex("1234 8100 0001 0000 0000 0000") + b"\x01a\x00\x00\x01\x00\x01",   # a response
        bytes.fromhex("1234 0100 0001 0000 0000 0000") + b"\xc0\x0c\x00\x01\x00\x01",     # pointer loop
        bytes.fromhex("1234 0100 0001 0000 0000 0000") + b"\x40" + b"a" * 64 + b"\x00\x00\x01\x00\x01",
    ]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
        client.settimeout(0.5)
        for message in garbage:
            client.sendto(message, (LOOPBACK, port))
            with pytest.raises(socket.timeout):
                client.recvfrom(4096)
        # Two questions: answered FORMERR, not dropped.
        client.sendto(bytes.fromhex("4321 0100 0002 0000 0000 0000") + b"\x01a\x00\x00\x01\x00\x01" * 2,
                      (LOOPBACK, port))
        reply, _ = client.recvfrom(4096)
        assert reply[:2] == b"\x43\x21" and reply[3] & 0x0F == 1
    with socket.create_connection((LOOPBACK, port), timeout=2) as stream:
        stream.sendall(b"\x00\x0e" + bytes.fromhex("1234 8100 0001 0000 0000 0000") + b"\x00\x00")
        assert stream.recv(10) == b""
    name = "after-garbage.dns-listener.test"
    setup.set_addresses(name, a=("198.51.100.60",))
    assert dig(port, name).addresses == ["198.51.100.60"]
    assert own.is_running()


def test_more_tcp_queries_than_may_be_in_flight_sent_at_once_then_a_half_close_are_all_answered(listener):
    """RFC 7766 §6.2.1.1: pipelined queries, answered as their lookups finish; past the 64 a connection may
    have in flight the rest wait in the buffer, and a client that closes its side after sending still gets
    every answer."""
    port, setup, _ = listener()
    names = [f"pipelined-{index}.dns-listener.test" for index in range(PIPELINED_QUERIES)]
    for index, name in enumerate(names):
        setup.set_addresses(name, a=(f"198.51.{100 + index // 200}.{index % 200}",))
    messages = b""
    for index, name in enumerate(names):
        question = b"".join(bytes([len(label)]) + label.encode() for label in name.split(".")) + b"\x00\x00\x01\x00\x01"
        message = index.to_bytes(2, "big") + bytes.fromhex("0100 0001 0000 0000 0000") + question
        messages += len(message).to_bytes(2, "big") + message
    answered = {}
    with socket.create_connection((LOOPBACK, port), timeout=10) as stream:
        stream.sendall(messages)
        stream.shutdown(socket.SHUT_WR)
        buffer = b""
        while True:
            block = stream.recv(65536)
            if not block:
                break
            buffer += block
            while len(buffer) >= 2 and len(buffer) >= 2 + int.from_bytes(buffer[:2], "big"):
                length = int.from_bytes(buffer[:2], "big")
                reply, buffer = buffer[2:2 + length], buffer[2 + length:]
                answered[int.from_bytes(reply[:2], "big")] = reply
    assert sorted(answered) == list(range(len(names))), f"{len(answered)} answers"
    for index, reply in answered.items():
        assert reply[-4:] == bytes([198, 51, 100 + index // 200, index % 200]), index


def upstream_entry(own, host: str, port: int) -> dict | None:
    document = requests.get(own.admin_url("/upstreams"), timeout=5).json()
    return next((entry for entry in document["hosts"] if entry["host"] == host and entry["port"] == port), None)


def test_answers_follow_the_ranking_and_an_address_refused_by_its_probe_disappears(
        provider_setup, start_ipdirect, network):
    """`probe_answers` ranks a name nobody proxies: 127.0.0.2 refuses the origin's port (nginx listens on
    127.0.0.1 only), so its probe quarantines it and the next answer leaves it out, in /upstreams' order."""
    setup = provider_setup(PROVIDER)
    port = listener_port()
    rank_port = network.nginx_http_port
    own = start_resolving(start_ipdirect, setup, admin=True,
                          extra_sections=dns_section(port, probe_answers=True, rank_port=rank_port))
    wait_for_listener(port)
    name = "ranked.dns-listener.test"
    refusing, answering = "127.0.0.2", LOOPBACK
    setup.set_addresses(name, a=(refusing, answering))
    assert sorted(dig(port, name).addresses) == sorted([refusing, answering])

    deadline = time.monotonic() + PROBE_WAIT_SECONDS
    answer = dig(port, name)
    while answer.addresses != [answering] and time.monotonic() < deadline:
        time.sleep(0.1)
        answer = dig(port, name)
    assert answer.addresses == [answering], answer.text
    entry = upstream_entry(own, name, rank_port)
    assert entry is not None, requests.get(own.admin_url("/upstreams"), timeout=5).text
    states = {item["address"]: item["state"] for item in entry["addresses"]}
    assert states[refusing] == "quarantined" and states[answering] in ("healthy", "untried"), entry
    ranked = [item["address"] for item in sorted(entry["addresses"], key=lambda item: item["rank"])
              if item["state"] != "quarantined"]
    assert answer.addresses == ranked, entry


def test_without_probe_answers_no_connection_is_made_to_an_answered_address(provider_setup, start_ipdirect, network):
    setup = provider_setup(PROVIDER)
    port = listener_port()
    own = start_resolving(start_ipdirect, setup, admin=True,
                          extra_sections=dns_section(port, rank_port=network.nginx_http_port))
    wait_for_listener(port)
    name = "unprobed.dns-listener.test"
    setup.set_addresses(name, a=("127.0.0.2", LOOPBACK))
    assert len(dig(port, name).addresses) == 2
    time.sleep(1)
    probes = [count for (metric, _), count in scrape(own).items() if metric == "ipdirect_upstream_probes_total"]
    assert probes and sum(probes) == 0, probes
    entry = upstream_entry(own, name, network.nginx_http_port)
    assert entry is None or all(item["state"] != "quarantined" for item in entry["addresses"]), entry

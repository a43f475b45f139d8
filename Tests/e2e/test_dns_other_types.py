"""Types the proxy's resolver has no answer for (docs/behaviour.md "Use it as the machine's resolver", `other_types`,
`https_records`): MX and TXT relayed to the RFC 8484 provider (a real unbound) and answered with the client's
ID, and MX through a DNS-over-TLS provider; `other_types = "refuse"` answers REFUSED; HTTPS records served without their address hints, as they are, or
empty, as `https_records` says; with no DoH provider, other types go to the `forward` server."""

import socket

import pytest

from harness.dns_listener import dig, dns_section, listener_port, start_listening_ipdirect, wait_for_listener
from harness.dns_server import start_dnsmasq
from harness.ipdirect_proxy import ConfigAdditions
from harness.ports import LOOPBACK
from harness.resolution_checks import HTTPDNS_ONLY
from harness.resolver_config import HttpdnsProvider, httpdns_sections
from harness.unbound_doh import Record
from harness.unbound_dot import UnboundDot

PROVIDER = "unbound-get"
MAIL_NAME = "mail-relay.dns-listener.test"
HTTPS_NAME = "svc-relay.dns-listener.test"
HTTPS_RECORD = '1 . alpn="h2" ipv4hint=192.0.2.1 ech="AEX+DQBBpQAgACCW" ipv6hint=2001:db8::1'


@pytest.fixture
def listener(provider_setup, start_ipdirect, unbound_doh):
    """An ipdirect answering DNS on a free port, its provider the unbound DoH server; yields (port, unbound)."""
    def start(**dns_keys):
        port, _, _ = start_listening_ipdirect(provider_setup, start_ipdirect, PROVIDER, **dns_keys)
        return port, unbound_doh
    return start


def raw_query(port: int, name: str, qtype: int, query_id: int) -> bytes:
    """One UDP query with `query_id`, read back whole."""
    question = b"".join(bytes([len(label)]) + label.encode() for label in name.split(".")) + b"\x00"
    message = query_id.to_bytes(2, "big") + bytes.fromhex("0100 0001 0000 0000 0000") + question + qtype.to_bytes(2, "big") + b"\x00\x01"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
        client.settimeout(3)
        client.sendto(message, (LOOPBACK, port))
        reply, _ = client.recvfrom(65535)
    return reply


def test_mx_and_txt_are_answered_by_the_doh_provider_with_the_clients_id(listener):
    port, unbound = listener()
    unbound.set_record(MAIL_NAME, "MX", f"10 smtp.{MAIL_NAME}.")
    unbound.set_record(MAIL_NAME, "TXT", '"v=spf1 -all"')
    mx = dig(port, MAIL_NAME, "MX")
    assert mx.status == "NOERROR", mx.text
    assert [data for _, _, rtype, data in mx.records] == [f"10 smtp.{MAIL_NAME}."], mx.text
    txt = dig(port, MAIL_NAME.upper(), "TXT")
    assert [data for _, _, rtype, data in txt.records] == ['"v=spf1 -all"'], txt.text
    assert txt.records[0][0] == MAIL_NAME.upper() + ".", txt.text
    assert unbound.query_count(MAIL_NAME, "MX") == 1 and unbound.query_count(MAIL_NAME, "TXT") == 1
    reply = raw_query(port, MAIL_NAME, 15, 0xBEEF)
    assert reply[:2] == b"\xbe\xef" and reply[3] & 0x0F == 0 and int.from_bytes(reply[6:8], "big") == 1


def test_other_types_are_refused_when_set_so(listener):
    port, unbound = listener(other_types="refuse")
    unbound.set_record(MAIL_NAME, "MX", f"10 smtp.{MAIL_NAME}.")
    assert dig(port, MAIL_NAME, "MX").status == "REFUSED"
    assert unbound.query_count(MAIL_NAME, "MX") == 0


@pytest.mark.parametrize("mode, expected", [
    ("strip_hints", ['1 . alpn="h2" ech=AEX+DQBBpQAgACCW']),
    ("forward", ['1 . alpn="h2" ipv4hint=192.0.2.1 ech=AEX+DQBBpQAgACCW ipv6hint=2001:db8::1']),
    ("empty", []),
])
def test_https_records_are_served_as_https_records_says(listener, mode, expected):
    port, unbound = listener(https_records=mode)
    unbound.set_record(HTTPS_NAME, "HTTPS", HTTPS_RECORD)
    answer = dig(port, HTTPS_NAME, "HTTPS")
    assert answer.status == "NOERROR", answer.text
    assert [data.replace('"AEX+DQBBpQAgACCW"', "AEX+DQBBpQAgACCW") for _, _, _, data in answer.records] == expected, answer.text


def test_without_a_doh_provider_other_types_go_to_the_forward_server(start_ipdirect, provider_setup, tmp_path):
    lan = start_dnsmasq("lan-mx", tmp_path / "lan", ["--mx-host=mail.lan.example,smtp.lan.example,5"])
    try:
        # A JSON provider carries names, not DNS messages, so it cannot relay an MX query.
        port, _, _ = start_listening_ipdirect(provider_setup, start_ipdirect, "json-google", forward=[lan.address])
        answer = dig(port, "mail.lan.example", "MX")
        assert [data for _, _, _, data in answer.records] == ["5 smtp.lan.example."], answer.text
    finally:
        lan.stop()


def test_mx_is_answered_by_a_dot_provider(start_ipdirect, tmp_path, doh_certificate, certificates):
    """A dot connection gives each query an ID of its own; the client still gets its own back."""
    name = "mail.dot-relay.test"
    server = UnboundDot.start(tmp_path / "unbound-dot", doh_certificate, [Record(name, "MX", f"20 smtp.{name}.")])
    try:
        port = listener_port()
        provider = HttpdnsProvider(name="unbound-dot", format="dot", url=server.url, bootstrap=[LOOPBACK],
                                   ca_file=certificates.ca_file)
        start_ipdirect(ConfigAdditions(resolver_keys={"order": list(HTTPDNS_ONLY)},
                                       sections=httpdns_sections(provider) + dns_section(port)))
        wait_for_listener(port)
        answer = dig(port, name, "MX")
        assert [data for _, _, _, data in answer.records] == [f"20 smtp.{name}."], answer.text
        reply = raw_query(port, name, 15, 0x5A5A)
        assert reply[:2] == b"\x5a\x5a" and int.from_bytes(reply[6:8], "big") == 1
    finally:
        server.stop()

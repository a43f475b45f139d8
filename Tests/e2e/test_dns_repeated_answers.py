"""Repeated A and AAAA questions to the DNS listener are answered from answer templates (docs/behaviour.md "Use it as
the machine's resolver"): the same records as the first answer, with the asker's ID, flags and letter case and the
TTL counted down, over UDP and TCP; and a template is never used once what it was made from changed: a cache
flush, a quarantined address, a reload, a client outside `[access] clients`."""

import random
import signal
import socket
import struct
import time

import requests

from harness.dns_listener import dig, dns_section, listener_port, wait_for_listener
from harness.ipdirect_proxy import ADMIN_MARKER
from harness.ports import LOOPBACK
from harness.resolution_checks import event_lines, fetch, start_resolving
from test_admin_metrics import scrape, value

PROVIDER = "unbound-get"
PROVIDER_TTL = 300
MAX_TTL = 60
REPEATS = 20
ADMIN_TIMEOUT_SECONDS = 10
RELOAD_WAIT_SECONDS = 10
POLL_SECONDS = 0.05
SOCKET_TIMEOUT_SECONDS = 3
TEMPLATE_METRIC = "ipdirect_dns_template_answers_total"


def start(provider_setup, start_ipdirect, access_keys=None, **dns_keys):
    setup = provider_setup(PROVIDER)
    port = listener_port()
    own = start_resolving(start_ipdirect, setup, admin=True, access_keys=access_keys,
                          extra_sections=dns_section(port, **dns_keys))
    if access_keys is None:
        wait_for_listener(port)
    return port, setup, own


def query(name: str, query_id: int, rtype: int = 1, flags: int = 0x0100) -> bytes:
    question = b"".join(bytes([len(label)]) + label.encode() for label in name.split(".")) + b"\x00"
    return struct.pack("!HHHHHH", query_id, flags, 1, 0, 0, 0) + question + struct.pack("!HH", rtype, 1)


def ask_udp(port: int, message: bytes) -> bytes:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
        client.settimeout(SOCKET_TIMEOUT_SECONDS)
        client.sendto(message, (LOOPBACK, port))
        reply, _ = client.recvfrom(4096)
        return reply


def ask_tcp(port: int, message: bytes) -> bytes:
    with socket.create_connection((LOOPBACK, port), timeout=SOCKET_TIMEOUT_SECONDS) as stream:
        stream.sendall(len(message).to_bytes(2, "big") + message)
        reply = b""
        while len(reply) < 2 or len(reply) < 2 + int.from_bytes(reply[:2], "big"):
            block = stream.recv(4096)
            assert block, "connection closed before the answer"
            reply += block
        return reply[2:]


def ttls(reply: bytes, question_end: int) -> list[int]:
    """The TTL of each address record, which follow the question with a 2-octet owner pointer each."""
    count = int.from_bytes(reply[6:8], "big")
    offset, found = question_end, []
    for _ in range(count):
        found.append(int.from_bytes(reply[offset + 6:offset + 10], "big"))
        offset += 12 + int.from_bytes(reply[offset + 10:offset + 12], "big")
    return found


def without_ttls(reply: bytes, question_end: int) -> bytes:
    """`reply` with ID and TTLs zeroed and the question in lower case: what every repeat must share."""
    body = bytearray(reply)
    body[0:2] = b"\x00\x00"
    body[3] &= ~0x10
    body[12:question_end] = body[12:question_end].lower()
    offset = question_end
    for _ in range(int.from_bytes(reply[6:8], "big")):
        body[offset + 6:offset + 10] = b"\x00\x00\x00\x00"
        offset += 12 + int.from_bytes(reply[offset + 10:offset + 12], "big")
    return bytes(body)


def mixed_case(name: str, rng: random.Random) -> str:
    return "".join(letter.upper() if rng.random() < 0.5 else letter for letter in name)


def template_answers(own) -> float:
    return value(scrape(own), TEMPLATE_METRIC)


def test_repeats_get_the_first_answers_records_with_their_own_id_flags_and_case_over_udp_and_tcp(
        provider_setup, start_ipdirect):
    port, setup, own = start(provider_setup, start_ipdirect)
    name = "repeated.dns-templates.test"
    setup.set_addresses(name, a=("198.51.100.70", "198.51.100.71"), aaaa=("2001:db8::70",), ttl=PROVIDER_TTL)
    question_end = len(query(name, 0))
    first = ask_udp(port, query(name, 1))
    assert first[3] & 0x0F == 0 and int.from_bytes(first[6:8], "big") == 2, first
    # The first lookup asks the provider for A and AAAA; the AAAA answer may be cached a moment after the A
    # answer went out, and every change to the cache ends the templates made before it. Asking for AAAA waits
    # for it, so that the repeats below run against a cache that no longer changes.
    assert ask_udp(port, query(name, 2, rtype=28))[3] & 0x0F == 0
    before = scrape(own)
    rng = random.Random(70)
    previous_ttl = max(ttls(first, question_end))
    for index in range(REPEATS):
        asked = mixed_case(name, rng)
        query_id = rng.randrange(1, 65536)
        flags = 0x0110 if index % 2 else 0x0100
        message = query(asked, query_id, flags=flags)
        reply = ask_tcp(port, message) if index % 4 == 3 else ask_udp(port, message)
        assert reply[:2] == query_id.to_bytes(2, "big")
        assert reply[12:question_end] == message[12:question_end], "the question comes back as it was asked"
        assert reply[2] == 0x81 and reply[3] == (0x90 if flags & 0x0010 else 0x80), reply[:4]
        assert without_ttls(reply, question_end) == without_ttls(first, question_end)
        answer_ttls = ttls(reply, question_end)
        assert len(set(answer_ttls)) == 1 and 0 < answer_ttls[0] <= min(previous_ttl, MAX_TTL), answer_ttls
        previous_ttl = answer_ttls[0]
    samples = scrape(own)

    def grew(name: str, **labels) -> float:
        return value(samples, name, **labels) - value(before, name, **labels)
    assert grew(TEMPLATE_METRIC) >= REPEATS - 1, samples
    answered = sum(grew("ipdirect_dns_queries_total", transport=transport, qtype="A", rcode="NOERROR")
                   for transport in ("udp", "tcp"))
    assert answered == REPEATS, samples
    logged = requests.get(own.admin_url(f"/queries?limit={REPEATS}"), timeout=ADMIN_TIMEOUT_SECONDS).json()["queries"]
    assert [(entry["name"], entry["type"]) for entry in logged] == [(name, "A")] * REPEATS, logged
    assert all(entry["source"] == f"cache:{PROVIDER}" and sorted(entry["addresses"]) == ["198.51.100.70", "198.51.100.71"]
               for entry in logged[:REPEATS]), logged
    assert setup.queries(name, "A") == 1


def test_a_cache_flush_replaces_a_repeated_answer(provider_setup, start_ipdirect):
    port, setup, own = start(provider_setup, start_ipdirect)
    name = "flushed.dns-templates.test"
    setup.set_addresses(name, a=("198.51.100.80",), ttl=PROVIDER_TTL)
    for _ in range(3):
        assert dig(port, name, "A", "+noedns").addresses == ["198.51.100.80"]
    assert template_answers(own) >= 1
    setup.set_addresses(name, a=("198.51.100.81",), ttl=PROVIDER_TTL)
    assert dig(port, name, "A", "+noedns").addresses == ["198.51.100.80"], "the cached answer lasts its TTL"
    flushed = requests.post(own.admin_url(f"/cache/flush?name={name}"), headers=ADMIN_MARKER, timeout=ADMIN_TIMEOUT_SECONDS)
    assert flushed.status_code == 200, flushed.text
    assert dig(port, name, "A", "+noedns").addresses == ["198.51.100.81"]


def test_an_address_quarantined_by_a_proxied_connection_leaves_a_repeated_answer(provider_setup, start_ipdirect, network):
    """127.0.0.2 refuses the origin's port (nginx listens on 127.0.0.1 only): a proxied request to it fails and
    quarantines the address, and the next answer for the rank port leaves it out."""
    rank_port = network.nginx_http_port
    port, setup, own = start(provider_setup, start_ipdirect, rank_port=rank_port)
    name = "quarantined.dns-templates.test"
    refusing = "127.0.0.2"
    setup.set_addresses(name, a=(refusing, LOOPBACK), ttl=PROVIDER_TTL)
    for _ in range(3):
        assert sorted(dig(port, name, "A", "+noedns").addresses) == sorted([refusing, LOOPBACK])
    assert template_answers(own) >= 1
    response = fetch(own, f"http://{refusing}:{rank_port}/", f"{refusing}:{rank_port}")
    assert response.status == 502, response
    assert event_lines(own, "address_quarantined"), own.stderr_since_mark()[-2000:]
    assert dig(port, name, "A", "+noedns").addresses == [LOOPBACK]


def test_a_reload_that_changes_max_addresses_changes_a_repeated_answer(provider_setup, start_ipdirect):
    port, setup, own = start(provider_setup, start_ipdirect)
    name = "reloaded.dns-templates.test"
    setup.set_addresses(name, a=("198.51.100.90", "198.51.100.91"), ttl=PROVIDER_TTL)
    for _ in range(3):
        assert len(dig(port, name, "A", "+noedns").addresses) == 2
    text = own.config_path.read_text()
    marker = 'query_log_level = "info"'
    assert marker in text
    own.config_path.write_text(text.replace(marker, marker + "\nmax_addresses = 1", 1))
    own.process.popen.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + RELOAD_WAIT_SECONDS
    while not event_lines(own, "reloaded"):
        assert time.monotonic() < deadline, own.stderr_since_mark()[-2000:]
        time.sleep(POLL_SECONDS)
    assert len(dig(port, name, "A", "+noedns").addresses) == 1


def test_a_client_outside_access_clients_is_refused_when_others_got_the_answer_from_a_template(
        provider_setup, start_ipdirect):
    port, setup, own = start(provider_setup, start_ipdirect, access_keys={"clients": ["127.0.0.2/32"]})
    name = "acl.dns-templates.test"
    setup.set_addresses(name, a=("198.51.100.95",), ttl=PROVIDER_TTL)
    deadline = time.monotonic() + RELOAD_WAIT_SECONDS
    while dig(port, "localhost", source="127.0.0.2").status != "NOERROR":
        assert time.monotonic() < deadline, "the DNS listener never answered"
        time.sleep(POLL_SECONDS)
    for _ in range(3):
        assert dig(port, name, "A", "+noedns", source="127.0.0.2").addresses == ["198.51.100.95"]
    assert template_answers(own) >= 1
    refused = dig(port, name, "A", "+noedns")
    assert refused.status == "REFUSED", refused.text

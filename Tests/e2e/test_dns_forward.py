"""The DNS listener's `[dns] forward` servers (docs/behaviour.md "Use it as the machine's resolver", "Relayed answers"):
names that never go to HTTPDNS (single labels, .local, private PTR) are answered by a dnsmasq set as `forward`,
with the client's ID, while the HTTPDNS provider never hears of them; without `forward` they stay NXDOMAIN; a
forward server that never answers gives SERVFAIL after the timeout, and the listener keeps serving."""

import socket
import time

import pytest

from harness.dns_listener import dig, start_listening_ipdirect
from harness.dns_server import start_dnsmasq
from harness.ports import LOOPBACK
from test_admin_metrics import scrape, value

PROVIDER = "unbound-get"
PRINTER_ADDRESS = "192.0.2.50"
PRIVATE_PTR = "50.1.168.192.in-addr.arpa"
# `[dns]`'s forward timeout (DNSSettings.forwardTimeoutMs), and what a test allows on top of it.
FORWARD_TIMEOUT_SECONDS = 2.0
SLACK_SECONDS = 1.5


@pytest.fixture
def lan_dns(tmp_path):
    """A dnsmasq that knows the local network: a printer, its reverse name, and nothing else."""
    server = start_dnsmasq("lan-dnsmasq", tmp_path / "lan", [
        f"--address=/printer/{PRINTER_ADDRESS}",
        f"--address=/printer.local/{PRINTER_ADDRESS}",
        f"--ptr-record={PRIVATE_PTR},printer.lan",
    ])
    yield server
    server.stop()


@pytest.fixture
def listener(provider_setup, start_ipdirect):
    """An ipdirect answering DNS on a free port with `[dns]` keys; yields (port, setup, ipdirect)."""
    def start(admin=False, **dns_keys):
        return start_listening_ipdirect(provider_setup, start_ipdirect, PROVIDER, admin=admin, **dns_keys)
    return start


def query_id(answer_text: str) -> int:
    return int(answer_text.split("id: ")[1].split()[0])


@pytest.mark.parametrize("name, rtype, expected", [
    ("printer", "A", PRINTER_ADDRESS),
    ("Printer.Local", "A", PRINTER_ADDRESS),
    (PRIVATE_PTR, "PTR", "printer.lan."),
])
def test_local_names_are_answered_by_the_forward_server_and_never_reach_the_provider(listener, lan_dns, name, rtype,
                                                                                      expected):
    port, setup, _ = listener(forward=[lan_dns.address])
    answer = dig(port, name, rtype)
    assert answer.status == "NOERROR", answer.text
    assert [data for _, _, kind, data in answer.records if kind == rtype] == [expected], answer.text
    # dig checks the ID and question it sent; the name comes back as it was asked.
    assert answer.records[0][0] == name + ".", answer.text
    assert setup.queries(name, rtype) == 0 and setup.queries(name, "A") == 0


def test_without_forward_servers_local_names_stay_nxdomain(listener):
    port, setup, _ = listener()
    for name, rtype in (("printer", "A"), (PRIVATE_PTR, "PTR")):
        answer = dig(port, name, rtype)
        assert answer.status == "NXDOMAIN", answer.text


def test_onion_and_invalid_names_are_never_forwarded(listener, lan_dns):
    port, _, _ = listener(forward=[lan_dns.address])
    for name in ("hidden.onion", "anything.invalid"):
        assert dig(port, name).status == "NXDOMAIN"


def test_a_forward_server_that_never_answers_gives_servfail_after_the_timeout_and_the_listener_keeps_serving(
        listener, lan_dns):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:
        # Bound, so no ICMP port-unreachable tells ipdirect at once: queries just go unanswered.
        silent.bind((LOOPBACK, 0))
        silent_address = f"{LOOPBACK}:{silent.getsockname()[1]}"
        port, _, own = listener(admin=True, forward=[silent_address])
        started = time.monotonic()
        answer = dig(port, "printer", "A", "+time=6")
        elapsed = time.monotonic() - started
        assert answer.status == "SERVFAIL", answer.text
        assert FORWARD_TIMEOUT_SECONDS - 0.2 <= elapsed <= FORWARD_TIMEOUT_SECONDS + SLACK_SECONDS, elapsed
        assert dig(port, "localhost").addresses == ["127.0.0.1"]
        assert own.is_running()
        assert value(scrape(own), "ipdirect_dns_relayed_total", upstream="forward", outcome="failed") == 1


def test_the_next_forward_server_answers_when_the_first_is_silent(listener, lan_dns):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:
        silent.bind((LOOPBACK, 0))
        port, _, _ = listener(forward=[f"{LOOPBACK}:{silent.getsockname()[1]}", lan_dns.address])
        answer = dig(port, "printer", "A", "+time=6")
        assert answer.addresses == [PRINTER_ADDRESS], answer.text


def test_an_answer_too_large_for_udp_is_fetched_over_tcp_and_cut_again_for_a_udp_client(listener, tmp_path):
    # Six 250-octet TXT records: about 1.5 KB, more than the 1232 octets ipdirect takes over UDP upstream.
    texts = [chr(ord("a") + index) * 250 for index in range(6)]
    big = start_dnsmasq("big-dnsmasq", tmp_path / "big", [f"--txt-record=big.local,{text}" for text in texts])
    try:
        port, _, own = listener(forward=[big.address])
        whole = dig(port, "big.local", "TXT", "+tcp")
        assert whole.status == "NOERROR", whole.text
        assert sorted(data.strip('"') for _, _, _, data in whole.records) == texts, whole.text
        assert f"forwarded to {big.address}/tcp" in own.stderr_since_mark()
        cut = dig(port, "big.local", "TXT", "+bufsize=1232", "+ignore")
        assert "tc" in cut.flags and 0 < len(cut.records) < len(texts), cut.text
    finally:
        big.stop()

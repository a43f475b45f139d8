"""The query log (`GET /queries`, docs/operating.md "Admin API and metrics"): the DNS listener's queries and the proxy's
lookups for requests, newest first, each with its source, outcome and answer; `[dns] query_log = 0` keeps none."""

import requests

from harness.dns_listener import dig, dns_section, listener_port, wait_for_listener
from harness.dns_server import start_dnsmasq
from harness.ports import LOOPBACK
from harness.raw_http import RawConnection, get_request
from harness.resolution_checks import REQUEST_TIMEOUT_SECONDS, fetch, start_resolving
from harness.resolver_scenarios import wait_for_event

PROVIDER = "unbound-get"
ADMIN_TIMEOUT_SECONDS = 10
HIJACKED_ADDRESS = "127.0.0.9"


def queries(own, query: str = "") -> dict:
    response = requests.get(own.admin_url("/queries" + query), timeout=ADMIN_TIMEOUT_SECONDS)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"] == "application/json"
    return response.json()


def start_listening(provider_setup, start_ipdirect, **dns_keys):
    setup = provider_setup(PROVIDER)
    port = listener_port()
    own = start_resolving(start_ipdirect, setup, extra_sections=dns_section(port, **dns_keys), admin=True)
    wait_for_listener(port)
    return setup, port, own


def test_queries_lists_a_dig_query_and_a_proxied_lookup_newest_first_with_source_and_answer(
        provider_setup, start_ipdirect, network):
    setup, port, own = start_listening(provider_setup, start_ipdirect)
    asked = "dug.query-log.test"
    setup.set_addresses(asked, a=("198.51.100.40", "198.51.100.41"))
    proxied = "proxied.query-log.test"
    setup.set_addresses(proxied, a=(LOOPBACK,))

    assert sorted(dig(port, asked).addresses) == ["198.51.100.40", "198.51.100.41"]
    response = fetch(own, network.plain_url("/", proxied), network.plain_authority(proxied))
    assert response.status == 200

    log = queries(own)
    assert log["enabled"] is True and log["capacity"] == 1000
    rows = [row for row in log["queries"] if row["name"] in (asked, proxied)]
    assert [row["name"] for row in rows] == [proxied, asked], log
    lookup, query = rows
    assert lookup["origin"] == "proxy" and lookup["type"] == "A+AAAA", lookup
    assert lookup["source"] == setup.name and lookup["outcome"] == "NOERROR", lookup
    assert lookup["addresses"] == [LOOPBACK] and lookup["hijack"] is False, lookup
    assert query["origin"] == "dns" and query["type"] == "A" and query["outcome"] == "NOERROR", query
    assert query["source"] == setup.name, query
    assert sorted(query["addresses"]) == ["198.51.100.40", "198.51.100.41"], query
    assert query["client"].startswith(f"{LOOPBACK}:"), query
    assert query["time"] <= lookup["time"] and query["elapsed_us"] >= 0

    again = dig(port, asked)
    assert again.status == "NOERROR"
    newest = queries(own, "?limit=1")["queries"]
    assert len(newest) == 1 and newest[0]["name"] == asked, newest
    assert newest[0]["source"] == f"cache:{setup.name}", newest


def test_names_the_listener_answers_itself_are_logged_with_their_reason(provider_setup, start_ipdirect):
    _, port, own = start_listening(provider_setup, start_ipdirect)
    assert dig(port, "printer.local").status == "NXDOMAIN"
    row = queries(own, "?limit=1")["queries"][0]
    assert row["name"] == "printer.local" and row["outcome"] == "NXDOMAIN", row
    assert row["source"] == "local" and "local-use" in row["detail"], row


def test_query_log_zero_keeps_nothing_and_says_it_is_off(provider_setup, start_ipdirect):
    setup, port, own = start_listening(provider_setup, start_ipdirect, query_log=0)
    name = "unlogged.query-log.test"
    setup.set_addresses(name, a=("198.51.100.42",))
    assert dig(port, name).addresses == ["198.51.100.42"]
    assert queries(own) == {"enabled": False, "capacity": 0, "queries": []}


def test_a_name_the_system_resolver_answers_otherwise_is_marked_hijacked(provider_setup, start_ipdirect, network,
                                                                         tmp_path):
    hijacker = start_dnsmasq("hijacker", tmp_path / "hijacker", [f"--address=/hijack.test/{HIJACKED_ADDRESS}"])
    try:
        setup = provider_setup(PROVIDER)
        own = start_resolving(start_ipdirect, setup, admin=True,
                              resolver_keys={"compare_system": True, "system_nameservers": [hijacker.address]})
        name = "www.hijack.test"
        honest = "www.honest.test"
        setup.set_addresses(name, a=(LOOPBACK,))
        setup.set_addresses(honest, a=(LOOPBACK,))
        assert fetch(own, network.plain_url("/", name), network.plain_authority(name)).status == 200
        wait_for_event(own, "system_dns_disagrees", name=name)
        fetch(own, network.plain_url("/", honest), network.plain_authority(honest))
        marks = {row["name"]: row["hijack"] for row in queries(own)["queries"]}
        assert marks == {name: True, honest: False}, marks
    finally:
        hijacker.stop()


def test_a_proxied_lookup_that_repeats_the_newest_is_counted_in_it_rather_than_listed_again(
        provider_setup, start_ipdirect, network):
    setup, _, own = start_listening(provider_setup, start_ipdirect)
    name = "repeated.query-log.test"
    setup.set_addresses(name, a=(LOOPBACK,))
    # One connection: each worker keeps a ring of its own, and one connection stays on one worker.
    with RawConnection(own.address, timeout=REQUEST_TIMEOUT_SECONDS) as client:
        for _ in range(3):
            client.send(get_request(network.plain_url("/", name), network.plain_authority(name), ""))
            assert client.read_response().status == 200

    # The first lookup asked the provider; the two after it were answered from the cache alike.
    rows = [row for row in queries(own)["queries"] if row["name"] == name]
    assert [(row["source"], row["repeats"]) for row in rows] == [(f"cache:{setup.name}", 1), (setup.name, 0)], rows
    assert rows[0]["time"] >= rows[1]["time"]

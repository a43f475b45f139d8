"""/cache, /cache/flush and /resolve of the admin listener, against the HTTPDNS stub."""

import requests

from harness.ipdirect_proxy import ADMIN_MARKER
from harness.ports import LOOPBACK
from harness.resolution_checks import fetch, start_resolving

LONG_TTL = 600
ADMIN_TIMEOUT_SECONDS = 10
NO_ERROR, NAME_ERROR = 0, 3
A, AAAA = 1, 28


def admin_get(own, path: str) -> dict:
    response = requests.get(own.admin_url(path), timeout=ADMIN_TIMEOUT_SECONDS)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"] == "application/json"
    return response.json()


def flush(own, query: str = "") -> int:
    response = requests.post(own.admin_url("/cache/flush" + query), headers=ADMIN_MARKER,
                             timeout=ADMIN_TIMEOUT_SECONDS)
    assert response.status_code == 200, response.text
    return response.json()["flushed"]


def entries_for(own, name: str) -> dict[str, dict]:
    return {entry["type"]: entry for entry in admin_get(own, "/cache")["entries"] if entry["name"] == name}


def test_resolve_answers_in_google_schema_from_the_chain_then_the_cache(provider_setup, start_ipdirect):
    setup = provider_setup("json-google")
    name = "admin.resolve.test"
    setup.set_addresses(name, a=(LOOPBACK,), ttl=LONG_TTL)
    own = start_resolving(start_ipdirect, setup, admin=True)

    first = admin_get(own, f"/resolve?name={name}&type=A")
    assert first["Status"] == NO_ERROR
    assert first["Question"] == [{"name": f"{name}.", "type": A}]
    assert [(answer["name"], answer["type"], answer["data"]) for answer in first["Answer"]] == [(f"{name}.", A, LOOPBACK)]
    assert 0 < first["Answer"][0]["TTL"] <= LONG_TTL
    assert first["Comment"] == "source=json-google"

    again = admin_get(own, f"/resolve?name={name.upper()}")
    assert again["Answer"][0]["data"] == LOOPBACK
    assert again["Comment"] == "source=cache:json-google"
    assert setup.queries(name, "A") == 1

    no_aaaa = admin_get(own, f"/resolve?name={name}&type=AAAA")
    assert no_aaaa["Status"] == NO_ERROR and "Answer" not in no_aaaa
    assert no_aaaa["Question"] == [{"name": f"{name}.", "type": AAAA}]

    missing = admin_get(own, "/resolve?name=nothing-here.admin.test")
    assert missing["Status"] == NAME_ERROR and "Answer" not in missing


def test_cache_dump_shows_ttl_left_and_source_and_flush_forgets(provider_setup, start_ipdirect, network):
    setup = provider_setup("json-google")
    kept, flushed = "kept.admin.test", "flushed.admin.test"
    for name in (kept, flushed):
        setup.set_addresses(name, a=(LOOPBACK,), ttl=LONG_TTL)
    own = start_resolving(start_ipdirect, setup, admin=True)
    for name in (kept, flushed):
        assert fetch(own, network.plain_url("/echo", name), network.plain_authority(name)).status == 200

    entry = entries_for(own, flushed)["A"]
    assert entry["addresses"] == [LOOPBACK]
    assert entry["source"] == "json-google"
    assert 0 < entry["ttl_left"] <= LONG_TTL
    assert entry["negative"] is False
    # The stub has no AAAA record: a negative entry for the other family.
    assert entries_for(own, flushed)["AAAA"]["negative"] is True

    assert flush(own, f"?name={flushed.upper()}") == 2
    assert entries_for(own, flushed) == {}
    assert set(entries_for(own, kept)) == {"A", "AAAA"}
    assert fetch(own, network.plain_url("/echo", flushed), network.plain_authority(flushed)).status == 200
    assert setup.queries(flushed, "A") == 2, "a flushed name is asked again"
    assert setup.queries(kept, "A") == 1

    assert flush(own) >= 4
    assert admin_get(own, "/cache") == {"entries": [], "size": 0}

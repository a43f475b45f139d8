"""`spki_sha256` on an https provider: the endpoint's chain must carry one of the pinned keys, so the right pin
resolves and any other fails closed with the reason in the log (the dot provider's pins are tested with it)."""

import dataclasses

from harness.certificates import spki_sha256
from harness.ports import LOOPBACK
from harness.resolution_checks import event_lines, fetch, start_resolving

# The base64 of 32 zero octets: well-formed, and the key of no certificate.
WRONG_PIN = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="


def start_pinned(provider_setup, start_ipdirect, name: str, pin: str):
    setup = provider_setup("unbound-get")
    setup.set_addresses(name, a=(LOOPBACK,))
    pinned = dataclasses.replace(setup, provider=dataclasses.replace(setup.provider, spki_sha256=[pin]))
    return setup, start_resolving(start_ipdirect, pinned)


def test_doh_provider_with_the_server_key_pinned_resolves(provider_setup, start_ipdirect, network, doh_certificate):
    name = "pinned-key.test"
    setup, proxy = start_pinned(provider_setup, start_ipdirect, name, spki_sha256(doh_certificate.chain))

    response = fetch(proxy, network.plain_url("/echo", name), network.plain_authority(name))

    assert response.status == 200, response.describe()
    assert setup.queries(name, "A") == 1


def test_doh_provider_with_another_key_pinned_fails_closed(provider_setup, start_ipdirect, network):
    name = "other-key.test"
    setup, proxy = start_pinned(provider_setup, start_ipdirect, name, WRONG_PIN)

    response = fetch(proxy, network.plain_url("/echo", name), network.plain_authority(name))

    assert response.status != 200, response.describe()
    assert setup.queries(name, "A") == 0
    failures = event_lines(proxy, "httpdns_attempt_failed")
    assert failures and all("pin mismatch" in line for line in failures), proxy.stderr_since_mark()

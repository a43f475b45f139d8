"""Upstream TLS that must not be trusted: every bad certificate, a wrong pin or a server that does not speak TLS
gives a 502 naming the host, the ip:port and the reason in words (RFC 9209 `tls_certificate_error` or
`tls_protocol_error`), and never the page. `[tls] insecure_hosts` lifts verification for exactly the hosts it
names, loudly.
"""

import time

import pytest

from harness.certificates import (EXPIRED_HOST_NAME, OTHER_HOST_NAME, SELF_SIGNED_HOST_NAME, UNKNOWN_CA_HOST_NAME,
                                  WRONG_HOST_NAME, spki_sha256)
from harness.ports import LOOPBACK
from harness.tls_origination import (CERTIFICATE_ERROR, PROTOCOL_ERROR, OriginPage, assert_tls_failure, fetch,
                                     tls_origination_additions)

# Host -> the wordings the 502 must carry, one group per fact; any wording of a group will do, because
# OpenSSL's own texts ("self-signed certificate", "unable to get local issuer certificate") are acceptable.
BAD_CERTIFICATES = {
    EXPIRED_HOST_NAME: (("certificate has expired",),),
    # The names the certificate does carry, and the hint that the server may not have had the expected SNI.
    WRONG_HOST_NAME: (("hostname mismatch",), (OTHER_HOST_NAME,), ("SNI",)),
    SELF_SIGNED_HOST_NAME: (("self-signed", "self signed"),),
    UNKNOWN_CA_HOST_NAME: (("unknown CA", "unable to get local issuer"),),
}
PIN_MISMATCH = (("pin mismatch",),)
# How long a warning may take to reach the proxy's stderr file.
WARNING_WAIT_SECONDS = 3.0
WARNING_POLL_SECONDS = 0.05


def upstream_address(port: int) -> str:
    return f"{LOOPBACK}:{port}"


@pytest.mark.parametrize("host", sorted(BAD_CERTIFICATES))
def test_a_bad_certificate_gives_502_with_the_reason_and_never_the_page(proxy, network, host):
    response = fetch(proxy.address, network.tls_url(host), network.tls_authority(host))
    assert_tls_failure(response, host, upstream_address(network.nginx_https_port), CERTIFICATE_ERROR,
                       BAD_CERTIFICATES[host])
    proxy.wait_for_access_log("GET", network.tls_authority(host), "status=502")


def test_a_server_that_does_not_speak_tls_gives_502_tls_protocol_error(proxy, network):
    # The plain HTTP port answers a ClientHello with an HTTP 400, which is no TLS record.
    authority = f"a.test:{network.nginx_http_port}"
    response = fetch(proxy.address, f"https://{authority}/", authority)
    assert_tls_failure(response, "a.test", upstream_address(network.nginx_http_port), PROTOCOL_ERROR, ())
    proxy.wait_for_access_log("GET", authority, "status=502")


# Pins ------------------------------------------------------------------------------------------------------
def start_pinned_proxy(start_ipdirect, certificates):
    """a.test pinned to its own key, b.test to a.test's key (wrong), api.example.test to an unrelated key
    and, as a backup pin, the key of the CA that issued its certificate (RFC 7469 §2.6 pins any key of the
    verified chain)."""
    a_test_pin = spki_sha256(certificates.virtual_hosts["a.test"].chain)
    pins = {
        "a.test": [a_test_pin],
        "b.test": [a_test_pin],
        "api.example.test": [spki_sha256(certificates.default.chain), spki_sha256(certificates.ca_file)],
    }
    return start_ipdirect(tls_origination_additions(pins=pins))


def test_a_matching_pin_lets_the_page_through(start_ipdirect, network, certificates):
    own = start_pinned_proxy(start_ipdirect, certificates)
    page = OriginPage.parse(fetch(own.address, network.tls_url("a.test"), network.tls_authority("a.test")))
    assert (page.vhost, page.sni) == ("a.test", "a.test"), page


def test_a_pin_on_the_issuing_ca_among_other_pins_lets_the_page_through(start_ipdirect, network, certificates):
    own = start_pinned_proxy(start_ipdirect, certificates)
    name = "api.example.test"
    page = OriginPage.parse(fetch(own.address, network.tls_url(name), network.tls_authority(name)))
    assert (page.vhost, page.sni) == (name, name), page


def test_a_wrong_pin_gives_502_pin_mismatch_and_never_the_page(start_ipdirect, network, certificates):
    own = start_pinned_proxy(start_ipdirect, certificates)
    response = fetch(own.address, network.tls_url("b.test"), network.tls_authority("b.test"))
    assert_tls_failure(response, "b.test", upstream_address(network.nginx_https_port), CERTIFICATE_ERROR,
                       PIN_MISMATCH)
    own.wait_for_access_log("GET", network.tls_authority("b.test"), "status=502")


# Insecure hosts --------------------------------------------------------------------------------------------
def warning_lines_naming(proxy, host: str) -> list[str]:
    """stderr lines at level warning that name `host` (a line reads `<time> warning <message>`), waiting a
    moment for them to be written."""
    deadline = time.monotonic() + WARNING_WAIT_SECONDS
    while True:
        lines = [line for line in proxy.process.stderr_text().splitlines()
                 if line.split(" ", 2)[1:2] == ["warning"] and host in line]
        if lines or time.monotonic() >= deadline:
            return lines
        time.sleep(WARNING_POLL_SECONDS)


def test_an_insecure_host_is_reached_despite_its_self_signed_certificate_with_a_warning(start_ipdirect, network):
    own = start_ipdirect(tls_origination_additions(insecure_hosts=[SELF_SIGNED_HOST_NAME]))
    authority = network.tls_authority(SELF_SIGNED_HOST_NAME)
    page = OriginPage.parse(fetch(own.address, network.tls_url(SELF_SIGNED_HOST_NAME), authority))
    assert (page.vhost, page.sni) == (SELF_SIGNED_HOST_NAME, SELF_SIGNED_HOST_NAME), page
    assert warning_lines_naming(own, SELF_SIGNED_HOST_NAME), \
        f"no warning names {SELF_SIGNED_HOST_NAME} on stderr:\n{own.process.stderr_text()[-3000:]}"


@pytest.mark.parametrize("host", [EXPIRED_HOST_NAME, WRONG_HOST_NAME, UNKNOWN_CA_HOST_NAME])
def test_insecure_hosts_leaves_every_other_host_verified(start_ipdirect, network, host):
    own = start_ipdirect(tls_origination_additions(insecure_hosts=[SELF_SIGNED_HOST_NAME]))
    response = fetch(own.address, network.tls_url(host), network.tls_authority(host))
    assert_tls_failure(response, host, upstream_address(network.nginx_https_port), CERTIFICATE_ERROR,
                       BAD_CERTIFICATES[host])

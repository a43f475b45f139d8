"""TLS origination: for an absolute-form `https://` request on a plain proxy connection (RFC 9112 §3.2.2), ipdirect
connects to the host's address itself, sends the host name as SNI (RFC 6066 §3), verifies the certificate for
that name against `[tls] ca_file`, pools the TLS connection per host and resumes TLS sessions.

The HTTPS origin serves every virtual host on one ip:port and picks the host by SNI, so a page naming the
right vhost and sni proves the proxy sent the name the client asked for.
"""

import json
import signal

import pytest
import trustme

from harness.raw_http import RawConnection, get_request
from harness.resolver_scenarios import wait_for_event
from harness.tls_origination import (FULL_HANDSHAKE, REQUEST_TIMEOUT_SECONDS, SESSION_RESUMED, OriginPage,
                                     fetch, tls_origination_additions)

VIRTUAL_HOSTS = ["a.test", "b.test"]
# Enough client connections that, with a cache per worker, some would land on the worker that has none.
REQUESTS_ACROSS_WORKERS = 8


def pages_on_one_client_connection(proxy_address, network, names: list[str]) -> list[OriginPage]:
    """GET / of each named host in turn, all on one kept-alive client connection."""
    pages = []
    with RawConnection(proxy_address, timeout=REQUEST_TIMEOUT_SECONDS) as client:
        for name in names:
            client.send(get_request(network.tls_url(name), network.tls_authority(name)))
            pages.append(OriginPage.parse(client.read_response()))
    return pages


@pytest.mark.parametrize("name", VIRTUAL_HOSTS)
def test_https_absolute_form_reaches_the_named_virtual_host_with_its_name_as_sni(proxy, network, name):
    authority = network.tls_authority(name)
    page = OriginPage.parse(fetch(proxy.address, network.tls_url(name), authority))
    assert (page.vhost, page.sni) == (name, name), page
    assert page.host == authority, page
    proxy.wait_for_access_log("GET", authority, "status=200")


def test_keep_alive_https_requests_reuse_one_pooled_upstream_tls_connection(proxy, network):
    first, second = pages_on_one_client_connection(proxy.address, network, ["a.test", "a.test"])
    assert second.connection == first.connection, f"a new upstream TLS connection for the second request: " \
                                                  f"{first} then {second}"
    assert second.requests == first.requests + 1, (first, second)


def test_hosts_sharing_one_address_get_their_own_tls_connections_and_sni(proxy, network):
    # a.test and b.test resolve to the same ip:port; a pool keyed by address would send b.test's request
    # on a connection whose handshake named a.test.
    first_a, only_b, second_a = pages_on_one_client_connection(proxy.address, network,
                                                               ["a.test", "b.test", "a.test"])
    assert [(page.vhost, page.sni) for page in (first_a, only_b, second_a)] == \
        [("a.test", "a.test"), ("b.test", "b.test"), ("a.test", "a.test")]
    assert only_b.connection != first_a.connection, (first_a, only_b)
    assert second_a.connection == first_a.connection, (first_a, second_a)


def test_a_new_upstream_connection_to_the_same_host_resumes_the_tls_session(start_ipdirect, network):
    # Without pooling every request needs a new upstream connection; one client connection keeps both
    # requests on one worker, whose session cache must hold a.test's session.
    own = start_ipdirect(tls_origination_additions(upstream_max_idle_per_host=0))
    first, second = pages_on_one_client_connection(own.address, network, ["a.test", "a.test"])
    assert second.connection != first.connection, f"the upstream connection was reused: {first} {second}"
    assert first.session_reused == FULL_HANDSHAKE, f"a fresh proxy resumed a session: {first}"
    assert second.session_reused == SESSION_RESUMED, f"the second handshake was a full one: {second}"


def test_with_two_workers_every_new_upstream_connection_after_the_first_resumes_the_tls_session(start_ipdirect,
                                                                                                 network):
    # Each request comes on a client connection of its own, which either worker may accept: the workers share
    # one session cache, so a session one of them learned resumes on the other.
    own = start_ipdirect(tls_origination_additions(upstream_max_idle_per_host=0, workers=2))
    pages = [OriginPage.parse(fetch(own.address, network.tls_url("a.test"), network.tls_authority("a.test")))
             for _ in range(REQUESTS_ACROSS_WORKERS)]
    assert pages[0].session_reused == FULL_HANDSHAKE, f"a fresh proxy resumed a session: {pages[0]}"
    full = [page for page in pages[1:] if page.session_reused != SESSION_RESUMED]
    assert not full, f"full handshakes after the first: {full}"


def reload_with_ca_file(proxy, ca_file) -> None:
    """Points the running proxy's [tls] ca_file at `ca_file` by SIGHUP and waits until the reload is done."""
    current = f"ca_file = {json.dumps(str(proxy.current_ca_file))}"
    proxy.config_path.write_text(proxy.config_path.read_text().replace(current, f"ca_file = {json.dumps(str(ca_file))}"))
    proxy.current_ca_file = ca_file
    proxy.mark_logs()
    proxy.process.popen.send_signal(signal.SIGHUP)
    wait_for_event(proxy, "reloaded")


def test_a_reload_that_changes_the_trusted_cas_applies_them_to_new_upstream_connections(start_ipdirect, network,
                                                                                         tmp_path):
    own = start_ipdirect(tls_origination_additions(upstream_max_idle_per_host=0))
    own.current_ca_file = own.ca_file
    url, authority = network.tls_url("a.test"), network.tls_authority("a.test")
    assert fetch(own.address, url, authority).status == 200

    unrelated_ca = tmp_path / "unrelated-ca.pem"
    trustme.CA().cert_pem.write_to_path(str(unrelated_ca))
    reload_with_ca_file(own, unrelated_ca)
    assert fetch(own.address, url, authority).status == 502, "the origin's certificate was still trusted"

    # CAs that cannot be loaded leave the running [tls] in force rather than none.
    not_certificates = tmp_path / "not-certificates.pem"
    not_certificates.write_text("no PEM block in here\n")
    reload_with_ca_file(own, not_certificates)
    assert "event=reload_tls_failed" in own.stderr_since_mark()
    assert fetch(own.address, url, authority).status == 502

    reload_with_ca_file(own, own.ca_file)
    assert fetch(own.address, url, authority).status == 200


def test_an_ip_literal_host_gets_no_sni_and_is_verified_against_the_certificate_ip_names(proxy, network):
    # RFC 6066 §3 forbids an IP address as SNI; nginx then picks its default server, whose certificate
    # carries 127.0.0.1 as an IP name (RFC 6125: IP identities are matched byte for byte).
    authority = f"127.0.0.1:{network.nginx_https_port}"
    page = OriginPage.parse(fetch(proxy.address, f"https://{authority}/", authority))
    assert page.vhost == "default.test", page
    assert page.sni in ("", "-"), page

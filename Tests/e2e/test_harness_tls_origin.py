"""The HTTPS origin's good and bad virtual hosts and the TLS origination helpers, checked without any proxy, so a
red TLS origination test is never a broken harness."""

import socket
import ssl
import subprocess
import tomllib
from contextlib import contextmanager

import pytest
from cryptography.hazmat.primitives import serialization

from harness.certificates import (EXPIRED_HOST_NAME, SELF_SIGNED_HOST_NAME, UNKNOWN_CA_HOST_NAME, WRONG_HOST_NAME,
                                  leaf_certificate, spki_sha256)
from harness.ipdirect_proxy import ipdirect_config_text
from harness.ports import LOOPBACK
from harness.raw_http import RawConnection, RawResponse
from harness.tls_origination import (CERTIFICATE_ERROR, FULL_HANDSHAKE, PROTOCOL_ERROR, SESSION_RESUMED,
                                     OriginPage, assert_tls_failure, tls_origination_additions)
from test_check_command import EXAMPLE_LISTEN, EXAMPLE_NETWORK

pytestmark = pytest.mark.harness

TLS_TIMEOUT_SECONDS = 10
# What OpenSSL itself says when a client verifies each bad host for its own name; the proxy's reasons are
# checked against the same facts.
DIRECT_VERIFY_MESSAGES = {
    EXPIRED_HOST_NAME: "certificate has expired",
    WRONG_HOST_NAME: "hostname mismatch",
    SELF_SIGNED_HOST_NAME: "self-signed certificate",
    UNKNOWN_CA_HOST_NAME: "unable to get local issuer certificate",
}


@contextmanager
def tls_to_origin(port: int, name: str, context: ssl.SSLContext, session: ssl.SSLSession | None = None):
    with socket.create_connection((LOOPBACK, port), timeout=TLS_TIMEOUT_SECONDS) as raw:
        with context.wrap_socket(raw, server_hostname=name, session=session) as tls:
            yield tls


def get_page(tls: ssl.SSLSocket, name: str) -> OriginPage:
    connection = RawConnection.over(tls)
    connection.send(f"GET / HTTP/1.1\r\nHost: {name}\r\n\r\n".encode())
    return OriginPage.parse(connection.read_response())


def unverified_context() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


@pytest.mark.parametrize("host", sorted(DIRECT_VERIFY_MESSAGES))
def test_each_failure_host_presents_its_own_bad_certificate_by_sni(nginx_origin, certificates, host):
    with tls_to_origin(nginx_origin.https_port, host, unverified_context()) as tls:
        presented = tls.getpeercert(binary_form=True)
        page = get_page(tls, host)
    expected = leaf_certificate(certificates.failure_hosts[host].chain).public_bytes(serialization.Encoding.DER)
    assert presented == expected
    assert (page.vhost, page.sni) == (host, host)


@pytest.mark.parametrize("host", sorted(DIRECT_VERIFY_MESSAGES))
def test_a_client_trusting_the_test_ca_refuses_each_failure_host_for_its_reason(nginx_origin, certificates, host):
    context = ssl.create_default_context(cafile=str(certificates.ca_file))
    with pytest.raises(ssl.SSLCertVerificationError) as refused:
        with tls_to_origin(nginx_origin.https_port, host, context):
            pass
    assert DIRECT_VERIFY_MESSAGES[host] in refused.value.verify_message.lower()


def test_origin_pages_show_connection_reuse_and_session_resumption(nginx_origin, certificates):
    context = ssl.create_default_context(cafile=str(certificates.ca_file))
    with tls_to_origin(nginx_origin.https_port, "a.test", context) as tls:
        first, second = get_page(tls, "a.test"), get_page(tls, "a.test")
        session = tls.session
    with tls_to_origin(nginx_origin.https_port, "a.test", context, session=session) as tls:
        resumed = get_page(tls, "a.test")
    assert first.session_reused == FULL_HANDSHAKE and resumed.session_reused == SESSION_RESUMED
    assert second.connection == first.connection and second.requests == first.requests + 1
    assert resumed.connection != first.connection


@pytest.mark.parametrize("pem", ["leaf", "ca"])
def test_spki_pin_equals_the_openssl_command_line_pipeline(certificates, pem):
    path = certificates.virtual_hosts["a.test"].chain if pem == "leaf" else certificates.ca_file
    pipeline = (f"openssl x509 -in '{path}' -pubkey -noout | openssl pkey -pubin -outform der"
                f" | openssl dgst -sha256 -binary | base64")
    completed = subprocess.run(["sh", "-c", pipeline], capture_output=True, text=True, timeout=TLS_TIMEOUT_SECONDS)
    assert completed.returncode == 0, completed.stderr
    assert spki_sha256(path) == completed.stdout.strip()


def test_tls_origination_additions_land_in_the_right_tables(certificates):
    pin = spki_sha256(certificates.ca_file)
    additions = tls_origination_additions(https_upgrade=["a.test:8443", "*.example.test"],
                                          pins={"a.test": [pin], "b.test": [pin, pin]},
                                          insecure_hosts=["selfsigned.test"], upstream_max_idle_per_host=0)
    config = tomllib.loads(ipdirect_config_text([EXAMPLE_LISTEN], EXAMPLE_NETWORK, certificates.ca_file,
                                                additions=additions))
    assert config["proxy"]["upstream_max_idle_per_host"] == 0
    assert config["tls"]["ca_file"] == str(certificates.ca_file)
    assert config["tls"]["insecure_hosts"] == ["selfsigned.test"]
    assert config["tls"]["pin"] == [{"host": "a.test", "spki_sha256": [pin]},
                                    {"host": "b.test", "spki_sha256": [pin, pin]}]
    assert config["upstream"]["https_upgrade"] == ["a.test:8443", "*.example.test"]


def test_no_tls_origination_additions_leave_the_shared_config_as_it_was(certificates):
    shared = ipdirect_config_text([EXAMPLE_LISTEN], EXAMPLE_NETWORK, certificates.ca_file)
    assert ipdirect_config_text([EXAMPLE_LISTEN], EXAMPLE_NETWORK, certificates.ca_file,
                                additions=tls_origination_additions()) == shared
    assert "upstream" not in tomllib.loads(shared)


# The 502 check, on made-up responses ---------------------------------------------------------------------
def tls_error(error_type=CERTIFICATE_ERROR, body="TLS to expired.test (127.0.0.1:8443) failed: certificate has "
                                                 "expired\n"):
    return RawResponse(502, "Bad Gateway", [("Proxy-Status", f'ipdirect; error={error_type}'),
                                            ("Content-Type", "text/plain; charset=utf-8")], body.encode())


EXPIRED_REASON = (("certificate has expired",),)


def test_tls_failure_check_accepts_a_conforming_response():
    assert_tls_failure(tls_error(), "expired.test", "127.0.0.1:8443", CERTIFICATE_ERROR, EXPIRED_REASON)


def test_tls_failure_check_takes_any_wording_of_a_reason_group_in_any_case():
    response = tls_error(body="TLS to x.test (127.0.0.1:1) failed: Self-Signed certificate\n")
    assert_tls_failure(response, "x.test", "127.0.0.1:1", CERTIFICATE_ERROR, (("self signed", "self-signed"),))


@pytest.mark.parametrize("response, host, address, error_type", [
    pytest.param(tls_error(), "expired.test", "127.0.0.1:8443", PROTOCOL_ERROR, id="wrong-error-type"),
    pytest.param(tls_error(), "other.test", "127.0.0.1:8443", CERTIFICATE_ERROR, id="host-not-named"),
    pytest.param(tls_error(), "expired.test", "127.0.0.1:9443", CERTIFICATE_ERROR, id="address-not-named"),
    pytest.param(tls_error(body="TLS to expired.test (127.0.0.1:8443) failed\n"), "expired.test", "127.0.0.1:8443",
                 CERTIFICATE_ERROR, id="reason-not-said"),
    pytest.param(tls_error(body="vhost=expired.test sni=expired.test certificate has expired 127.0.0.1:8443\n"),
                 "expired.test", "127.0.0.1:8443", CERTIFICATE_ERROR, id="the-page-came-through"),
])
def test_tls_failure_check_rejects(response, host, address, error_type):
    with pytest.raises(AssertionError):
        assert_tls_failure(response, host, address, error_type, EXPIRED_REASON)

"""The fixtures themselves, checked without any proxy, so a red proxy test is never a broken harness."""

import datetime
import hashlib
import socket
import ssl

import pytest
from cryptography import x509

from harness.certificates import OTHER_HOST_NAME, VIRTUAL_HOST_NAMES
from harness.dns_server import SYSTEM_RESOLVED_ADDRESS, SYSTEM_RESOLVED_NAME, query_a
from harness.raw_http import RawConnection
from harness.streaming_upload import GeneratedBody
from harness.websocket_client import OPCODE_TEXT, assert_echo_round_trips, handshake, masked_frame, read_frame

pytestmark = pytest.mark.harness

# RFC 1035 §4.1.1 response codes.
RCODE_NO_ERROR = 0


def origin_get(port: int, path: str, host: str, extra_headers: str = "") -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{extra_headers}\r\n".encode()


def fetch_over_tls(port: int, ca_file, server_name: str | None) -> str:
    context = ssl.create_default_context(cafile=str(ca_file))
    if server_name is None:
        context.check_hostname = False
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname=server_name) as tls:
            tls.sendall(f"GET / HTTP/1.1\r\nHost: {server_name or 'x'}\r\nConnection: close\r\n\r\n".encode())
            received = b""
            while block := tls.recv(65536):
                received += block
    return received.decode(errors="replace")


@pytest.mark.parametrize("name", VIRTUAL_HOST_NAMES)
def test_nginx_serves_each_virtual_host_with_its_own_certificate_by_sni(nginx_origin, certificates, name):
    page = fetch_over_tls(nginx_origin.https_port, certificates.ca_file, name)
    assert f"vhost={name} sni={name}" in page


def test_nginx_answers_a_client_without_sni_from_the_default_server(nginx_origin, certificates):
    assert "vhost=default.test" in fetch_over_tls(nginx_origin.https_port, certificates.ca_file, None)


def test_nginx_echo_shows_host_and_cookie(nginx_origin):
    with RawConnection(("127.0.0.1", nginx_origin.http_port)) as origin:
        origin.send(origin_get(nginx_origin.http_port, "/echo", "origin.test:1", "Cookie: a=1; b=2\r\n"))
        assert "host=origin.test:1 cookie=a=1; b=2 " in origin.read_response().text


def test_nginx_static_page_has_an_etag_that_yields_304(nginx_origin):
    with RawConnection(("127.0.0.1", nginx_origin.http_port)) as origin:
        origin.send(origin_get(nginx_origin.http_port, "/static/page.html", "origin.test"))
        etag = origin.read_response().header("ETag")
        assert etag
        origin.send(origin_get(nginx_origin.http_port, "/static/page.html", "origin.test",
                               f"If-None-Match: {etag}\r\n"))
        assert origin.read_response().status == 304


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_upload_location_reaches_the_hashing_origin(nginx_origin, upload_origin, chunked):
    body = GeneratedBody(3 * 1024 * 1024 + 7)
    payload = b"".join(body)
    with RawConnection(("127.0.0.1", nginx_origin.http_port)) as origin:
        if chunked:
            framed = b"".join(b"%x\r\n%s\r\n" % (len(block), block) for block in (payload[:1000], payload[1000:]))
            origin.send(b"POST /upload HTTP/1.1\r\nHost: origin.test\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + framed + b"0\r\n\r\n")
        else:
            origin.send(b"POST /upload HTTP/1.1\r\nHost: origin.test\r\nContent-Length: %d\r\n\r\n"
                        % len(payload) + payload)
        response = origin.read_response("POST")
    assert response.status == 200, response.describe()
    assert hashlib.sha256(payload).hexdigest() in response.text
    assert upload_origin.received[-1].sha256 == body.sha256


def test_websocket_location_echoes_messages(nginx_origin):
    with RawConnection(("127.0.0.1", nginx_origin.http_port)) as origin:
        response, expected_accept = handshake(origin, "/ws", f"origin.test:{nginx_origin.http_port}")
        assert response.status == 101 and response.header("Sec-WebSocket-Accept") == expected_accept
        origin.send(masked_frame(OPCODE_TEXT, b"ping through nginx"))
        assert read_frame(origin) == (OPCODE_TEXT, b"ping through nginx")


def test_websocket_echo_round_trips_with_the_absolute_form_request_the_proxy_test_sends(nginx_origin):
    # nginx accepts absolute-form targets itself (RFC 9112 §3.2.2), so the proxy test's exact client is
    # checked here without a proxy.
    authority = f"origin.test:{nginx_origin.http_port}"
    with RawConnection(("127.0.0.1", nginx_origin.http_port)) as origin:
        assert_echo_round_trips(origin, f"http://{authority}/ws", authority)


def test_counting_origin_counts_connections_and_bytes(counting_origin):
    with socket.create_connection(("127.0.0.1", counting_origin.port), timeout=5) as client:
        client.sendall(b"hello")
    counting_origin.settle(0.3)
    assert counting_origin.connection_count == 1
    assert counting_origin.received() == [b"hello"]


def test_dnsmasq_answers_the_test_name_from_its_own_table(dns_server):
    answer = query_a((dns_server.host, dns_server.port), SYSTEM_RESOLVED_NAME)
    assert answer.rcode == RCODE_NO_ERROR and answer.addresses == [SYSTEM_RESOLVED_ADDRESS]


def test_dnsmasq_does_not_resolve_other_names(dns_server):
    answer = query_a((dns_server.host, dns_server.port), "nxdomain.test")
    assert answer.addresses == [] and answer.rcode != RCODE_NO_ERROR


def test_blackhole_listener_makes_connects_hang(blackhole_listener):
    assert blackhole_listener.connect_hangs()


def test_closed_port_refuses_connections(network):
    with socket.socket() as client:
        assert client.connect_ex(("127.0.0.1", network.closed_port)) != 0


def test_failure_certificates_are_expired_wrong_named_self_signed_and_from_an_unknown_ca(certificates):
    def load(pair):
        return x509.load_pem_x509_certificate(pair.chain.read_bytes())

    now = datetime.datetime.now(datetime.timezone.utc)
    assert load(certificates.expired).not_valid_after_utc < now
    names = load(certificates.wrong_name).extensions.get_extension_for_class(x509.SubjectAlternativeName)
    assert names.value.get_values_for_type(x509.DNSName) == [OTHER_HOST_NAME]
    self_signed = load(certificates.self_signed)
    assert self_signed.issuer == self_signed.subject
    test_ca = x509.load_pem_x509_certificate(certificates.ca_file.read_bytes())
    assert load(certificates.unknown_ca).issuer != test_ca.subject


def test_ipv6_origin_answers_on_ipv6_loopback_only(ipv6_origin):
    with RawConnection(("::1", ipv6_origin.port)) as client:
        client.send(origin_get(ipv6_origin.port, "/", ipv6_origin.authority("v6.test"), "Connection: close\r\n"))
        response = client.read_response()
    assert response.status == 200
    assert response.text == f"origin=ipv6 host=v6.test:{ipv6_origin.port} client=::1\n"
    assert ipv6_origin.upstream == f"[::1]:{ipv6_origin.port}"
    assert ipv6_origin.request_count >= 1

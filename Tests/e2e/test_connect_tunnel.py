"""CONNECT tunnels (RFC 9110 §9.3.6): the client's own TLS, with its SNI, reaches the right virtual host."""

import os
import re
import shutil
import ssl
import subprocess

import pytest

from harness.proxy_status import assert_generated_error
from harness.digest_origin import exchange_through
from harness.raw_http import RawConnection

CURL_TIMEOUT_SECONDS = 20
VIRTUAL_HOSTS = ["a.test", "b.test"]


def connect_request(authority: str) -> bytes:
    return f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode()


@pytest.mark.peers("squid", "tinyproxy")
@pytest.mark.parametrize("name", VIRTUAL_HOSTS)
def test_curl_through_connect_gets_the_page_of_the_named_virtual_host(proxy, network, certificates, name):
    assert shutil.which("curl"), "curl is not installed"
    completed = subprocess.run(
        ["curl", "--silent", "--show-error", "--max-time", str(CURL_TIMEOUT_SECONDS), "--noproxy", "",
         "--proxytunnel", "--proxy", proxy.url, "--cacert", str(certificates.ca_file),
         f"https://{network.tls_authority(name)}/"],
        capture_output=True, text=True, timeout=CURL_TIMEOUT_SECONDS + 10)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith(f"vhost={name} sni={name} ")
    if proxy.has_access_log:
        proxy.wait_for_access_log("CONNECT", network.tls_authority(name), "200")


@pytest.mark.peers("squid", "tinyproxy")
@pytest.mark.parametrize("name", VIRTUAL_HOSTS)
def test_python_tls_over_a_raw_connect_gets_the_page_of_the_named_virtual_host(proxy, network, certificates,
                                                                                name):
    with RawConnection(proxy.address) as client:
        client.send(connect_request(network.tls_authority(name)))
        established = client.read_response("CONNECT")
        assert established.status == 200, established.describe()
        assert client.take_buffered() == b"", "bytes after the CONNECT response before TLS started"
        context = ssl.create_default_context(cafile=str(certificates.ca_file))
        with context.wrap_socket(client.sock, server_hostname=name) as tls:
            assert tls.getpeercert()["subjectAltName"] == (("DNS", name),)
            tls.sendall(f"GET / HTTP/1.1\r\nHost: {name}\r\nConnection: close\r\n\r\n".encode())
            page = b""
            while block := tls.recv(65536):
                page += block
    assert f"\r\n\r\nvhost={name} sni={name} ".encode() in page


@pytest.mark.peers("squid", "tinyproxy")
def test_connect_to_a_port_not_allowed_gets_403_and_reaches_nothing(proxy, network, counting_origin):
    authority = f"count.test:{network.counting_port}"
    assert network.counting_port not in network.connect_ports
    with RawConnection(proxy.address) as client:
        client.send(connect_request(authority))
        response = client.read_response("CONNECT")
    assert response.status == 403, response.describe()
    if proxy.kind == "ipdirect":
        assert_generated_error(response, 403, {"http_request_denied"}, mentions=(str(network.counting_port),))
        proxy.wait_for_access_log("CONNECT", authority, "403")
    counting_origin.settle(0.5)
    assert counting_origin.connection_count == 0, counting_origin.received()


# Bytes sent up the tunnel before the client half-closes; the origin sends as many back.
TUNNEL_PAYLOAD_BYTES = 8 * 1024 * 1024
TUNNEL_READ_SECONDS = 30


def test_tunnel_carries_bulk_bytes_both_ways_and_passes_a_half_close_on(proxy, network):
    authority = f"origin.test:{network.digest_port}"
    payload = os.urandom(TUNNEL_PAYLOAD_BYTES)
    with RawConnection(proxy.address, timeout=TUNNEL_READ_SECONDS) as client:
        client.send(connect_request(authority))
        established = client.read_response("CONNECT")
        assert established.status == 200, established.describe()
        exchange_through(client.sock, payload, early=client.take_buffered())
    if proxy.kind == "ipdirect":
        line = proxy.wait_for_access_log("CONNECT", authority, "status=200")
        assert int(re.search(r"bytes_in=(\d+)", line).group(1)) >= len(payload), line
        assert int(re.search(r"bytes_out=(\d+)", line).group(1)) >= len(payload), line

"""Bodies of known length move socket to pipe to socket in the kernel (splice), both ways, byte for byte:
Content-Length bodies back to back on one keep-alive connection, a body that runs until the server's FIN, an
upload; with every pipe busy they pass through a buffer instead, and with `max_pipes = 0` nothing is spliced."""

import hashlib
import os
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from harness.connect_tunnel import unlabelled_metric as metric
from harness.ipdirect_proxy import ConfigAdditions
from harness.loopback_server import LoopbackServer
from harness.streaming_upload import GeneratedBody, post_through_proxy

MIB = 1024 * 1024
# Many pipes' worth (a pipe holds 64 KiB), so the splice carries nearly all of it.
LARGE_BYTES = 24 * MIB
SMALL_PAGE = "/static/page.html"
TRANSFER_TIMEOUT_SECONDS = 60
# How long a finished exchange may take to reach the access log.
LOG_SETTLE_SECONDS = 10
# More downloads at once than the one pipe the proxy is given below.
CONCURRENT_DOWNLOADS = 6


@pytest.fixture(scope="module")
def large_file(nginx_origin) -> tuple[str, str]:
    """A file of random bytes the plain origin serves: its path and sha256."""
    data = os.urandom(LARGE_BYTES)
    path = nginx_origin.prefix / "html" / "large.bin"
    path.write_bytes(data)
    return "/large.bin", hashlib.sha256(data).hexdigest()


def wait_until(condition) -> bool:
    """The access log is written in batches: polls `condition` for a while."""
    deadline = time.monotonic() + LOG_SETTLE_SECONDS
    while not condition():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def download(session: requests.Session, own, url: str) -> str:
    response = session.get(url, proxies={"http": f"http://{own.address[0]}:{own.address[1]}"},
                           timeout=TRANSFER_TIMEOUT_SECONDS)
    assert response.status_code == 200
    return hashlib.sha256(response.content).hexdigest()


class CloseDelimitedOrigin(LoopbackServer):
    """Answers one request with a head that has neither Content-Length nor chunked, then the body, then its
    FIN: the body ends where the connection does (RFC 9112 §6.3 rule 8)."""
    name = "close-delimited-origin"

    def __init__(self, body: bytes):
        super().__init__()
        self.body = body

    def serve(self, connection: socket.socket) -> None:
        try:
            connection.settimeout(TRANSFER_TIMEOUT_SECONDS)
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = connection.recv(4096)
                if not chunk:
                    return
                head += chunk
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n" + self.body)
        except OSError:
            pass
        finally:
            connection.close()


def test_large_bodies_back_to_back_on_one_connection_arrive_intact_through_the_kernel(
        start_ipdirect, network, large_file):
    path, digest = large_file
    own = start_ipdirect(ConfigAdditions(admin=True))
    with requests.Session() as session:
        assert download(session, own, network.plain_url(path)) == digest
        small = download(session, own, network.plain_url(SMALL_PAGE))
        assert download(session, own, network.plain_url(path)) == digest
        assert download(session, own, network.plain_url(SMALL_PAGE)) == small
    assert metric(own, "ipdirect_spliced_bytes_total") >= 2 * (LARGE_BYTES - 64 * 1024)
    assert metric(own, "ipdirect_pipe_shortages_total") == 0
    # The later exchanges reused the pooled upstream connection: the splices read no byte past each body.
    assert wait_until(lambda: own.process.stdout_text().count("source=pool") >= 3), own.process.stdout_text()


def test_a_large_upload_arrives_intact_through_the_kernel(start_ipdirect, network, upload_origin):
    own = start_ipdirect(ConfigAdditions(admin=True))
    body = GeneratedBody(LARGE_BYTES)
    result = post_through_proxy(own.address, network.upload_url("/spliced"), body, False, TRANSFER_TIMEOUT_SECONDS)
    assert result.status == 200, result.origin_report
    assert result.origin_report["bytes"] == LARGE_BYTES
    assert result.origin_report["sha256"] == body.sha256
    assert metric(own, "ipdirect_spliced_bytes_total") >= LARGE_BYTES - 64 * 1024


def test_a_body_until_the_servers_fin_is_spliced_to_its_end(start_ipdirect):
    body = bytes(range(256)) * (LARGE_BYTES // 256)
    origin = CloseDelimitedOrigin(body).start()
    try:
        own = start_ipdirect(ConfigAdditions(admin=True))
        response = requests.get(f"http://127.0.0.1:{origin.port}/until-close",
                                proxies={"http": f"http://{own.address[0]}:{own.address[1]}"},
                                timeout=TRANSFER_TIMEOUT_SECONDS)
        assert response.status_code == 200
        assert response.headers.get("Connection", "").lower() == "close"
        assert response.content == body
        assert metric(own, "ipdirect_spliced_bytes_total") >= LARGE_BYTES - 64 * 1024
    finally:
        origin.stop()


def test_with_every_pipe_busy_the_other_transfers_pass_through_a_buffer(start_ipdirect, network, large_file):
    path, digest = large_file
    own = start_ipdirect(ConfigAdditions(proxy_keys={"workers": 1, "max_pipes": 1}, admin=True))
    barrier = threading.Barrier(CONCURRENT_DOWNLOADS)

    def one_download(_):
        with requests.Session() as session:
            barrier.wait(timeout=TRANSFER_TIMEOUT_SECONDS)
            return download(session, own, network.plain_url(path))

    with ThreadPoolExecutor(CONCURRENT_DOWNLOADS) as pool:
        digests = list(pool.map(one_download, range(CONCURRENT_DOWNLOADS)))
    assert digests == [digest] * CONCURRENT_DOWNLOADS
    assert metric(own, "ipdirect_pipes_open") <= 1
    assert metric(own, "ipdirect_pipe_shortages_total") > 0
    assert metric(own, "ipdirect_spliced_bytes_total") > 0


def test_with_max_pipes_zero_nothing_is_spliced(start_ipdirect, network, large_file, upload_origin):
    path, digest = large_file
    own = start_ipdirect(ConfigAdditions(proxy_keys={"max_pipes": 0}, admin=True))
    with requests.Session() as session:
        assert download(session, own, network.plain_url(path)) == digest
    body = GeneratedBody(LARGE_BYTES)
    result = post_through_proxy(own.address, network.upload_url("/buffered"), body, False, TRANSFER_TIMEOUT_SECONDS)
    assert result.origin_report["sha256"] == body.sha256
    assert metric(own, "ipdirect_spliced_bytes_total") == 0
    assert metric(own, "ipdirect_pipes_open") == 0

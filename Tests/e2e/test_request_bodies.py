"""Large request bodies stream through to the origin byte for byte, in both framings (RFC 9112 §6.2, §7.1)."""

import pytest

from harness.body_echo_origin import received_request
from harness.raw_http import RawConnection, get_request
from harness.streaming_upload import GeneratedBody, post_through_proxy

MIB = 1024 * 1024
# Large enough to pass through every buffer on the way several times over.
UPLOAD_BYTES = 50 * MIB
UPLOAD_TIMEOUT_SECONDS = 120
# Framing look-alikes inside chunk data: a proxy that scanned the data would end the body early.
ONE_BYTE_CHUNKS_BODY = b"0\r\n\r\nPOST / HTTP/1.1\r\n\r\n;ext=1 " + bytes(range(ord("A"), ord("Z") + 1))
CHECKSUM_TRAILER = ("X-Checksum", "sent-one-byte-per-chunk")
# Long enough that each chunk reaches the proxy in a read of its own.
PAUSE_BETWEEN_CHUNKS_SECONDS = 0.002


@pytest.mark.peers("squid", "tinyproxy")
@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_fifty_mebibyte_post_arrives_with_the_same_sha256(proxy, network, upload_origin, chunked):
    body = GeneratedBody(UPLOAD_BYTES)
    result = post_through_proxy(proxy.address, network.plain_url("/upload/fifty"), body, chunked,
                                UPLOAD_TIMEOUT_SECONDS)
    assert result.status == 200, result.origin_report
    assert result.origin_report["bytes"] == UPLOAD_BYTES
    assert result.origin_report["sha256"] == body.sha256
    assert any(record.sha256 == body.sha256 for record in upload_origin.received)
    if proxy.has_access_log:
        proxy.wait_for_access_log("POST", network.plain_authority(), "200")


def test_a_chunked_body_sent_one_byte_per_chunk_arrives_whole_with_its_trailer(proxy, body_echo_origin):
    path = "/upload/one-byte-chunks"
    head = get_request(body_echo_origin.url(path), body_echo_origin.authority, "Transfer-Encoding: chunked\r\n",
                       method="POST")
    chunks = [b"1\r\n%c\r\n" % byte for byte in ONE_BYTE_CHUNKS_BODY]
    last_chunk = b"0\r\n%s: %s\r\n\r\n" % tuple(part.encode() for part in CHECKSUM_TRAILER)
    with RawConnection(proxy.address) as client:
        client.send_separately([head, *chunks, last_chunk], PAUSE_BETWEEN_CHUNKS_SECONDS)
        received = received_request(client.read_response("POST"))
    assert received == {"method": "POST", "path": path, "body": ONE_BYTE_CHUNKS_BODY.decode("latin-1"),
                        "trailers": [list(CHECKSUM_TRAILER)]}

"""Large request bodies stream through to the origin byte for byte, in both framings (RFC 9112 §6.2, §7.1)."""

import pytest

from harness.streaming_upload import GeneratedBody, post_through_proxy

MIB = 1024 * 1024
# Large enough to pass through every buffer on the way several times over.
UPLOAD_BYTES = 50 * MIB
UPLOAD_TIMEOUT_SECONDS = 120


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

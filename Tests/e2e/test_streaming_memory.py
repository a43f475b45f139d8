"""A 1 GiB request body streams through without the proxy's memory growing with it."""

import pytest

from harness.memory_probe import MemoryProbe
from harness.proxy_under_test import selected_proxy_kind
from harness.streaming_upload import GeneratedBody, post_through_proxy

MIB = 1024 * 1024
GIB = 1024 * MIB
# Buffers may grow to a few high-water marks; anything near the body size means the body is being held.
RSS_GROWTH_LIMIT_BYTES = 64 * MIB
# 1 GiB on loopback takes seconds; this bound only stops a stalled transfer.
TRANSFER_TIMEOUT_SECONDS = 240


@pytest.mark.peers("squid", "tinyproxy")
@pytest.mark.parametrize("chunked", [
    # squid 5.7 now and then drops both sides of a long Content-Length upload (TCP_MISS_ABORTED, nothing in
    # cache.log); the origin and client then see squid close first. Not a harness fault, so not held against it.
    pytest.param(False, id="content-length",
                 marks=pytest.mark.xfail(selected_proxy_kind() == "squid", strict=False,
                                         reason="squid sometimes aborts long Content-Length uploads")),
    pytest.param(True, id="chunked"),
])
def test_one_gibibyte_body_streams_through_with_bounded_proxy_memory(proxy, network, upload_origin, chunked):
    body = GeneratedBody(GIB)
    with MemoryProbe(proxy.pid) as memory:
        result = post_through_proxy(proxy.address, network.upload_url("/gibibyte"), body, chunked,
                                    TRANSFER_TIMEOUT_SECONDS)
    assert result.status == 200, result.origin_report
    assert result.origin_report["bytes"] == GIB and result.origin_report["sha256"] == body.sha256
    assert memory.samples > 0
    assert memory.growth < RSS_GROWTH_LIMIT_BYTES, \
        f"{proxy.kind} RSS grew {memory.growth // MIB} MiB (from {memory.baseline // MIB} MiB) " \
        f"while streaming 1 GiB in {result.seconds:.1f}s"

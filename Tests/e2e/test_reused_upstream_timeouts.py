"""A pooled upstream connection's idle timeout ends when a request takes it: a request body that streams in
slowly over a reused connection is the client's pace, and no upstream timeout runs until it is all sent."""

import json

from harness.ipdirect_proxy import ConfigAdditions
from harness.raw_http import RawConnection, get_request

POOL_IDLE_SECONDS = 1
BODY_PIECES = [b"slow-", b"upload-", b"over-", b"three-", b"seconds"]
# Longer in all than the pool's idle timeout, which would otherwise end the exchange with a 504.
PAUSE_BETWEEN_PIECES_SECONDS = 0.7


def test_a_slow_upload_on_a_reused_connection_outlasts_the_pools_idle_timeout(start_ipdirect, body_echo_origin):
    own = start_ipdirect(ConfigAdditions(proxy_keys={"upstream_idle_timeout": POOL_IDLE_SECONDS}))
    body = b"".join(BODY_PIECES)
    with RawConnection(own.address, timeout=30) as client:
        client.send(get_request(body_echo_origin.url("/first"), body_echo_origin.authority))
        assert client.read_response().status == 200
        head = get_request(body_echo_origin.url("/upload"), body_echo_origin.authority,
                           f"Content-Length: {len(body)}\r\n", method="POST")
        client.send_separately([head, *BODY_PIECES], PAUSE_BETWEEN_PIECES_SECONDS)
        response = client.read_response("POST")
    assert response.status == 200, response
    assert json.loads(response.body)["body"] == body.decode()
    log = own.process.stdout_text()
    assert "source=pool" in log, log

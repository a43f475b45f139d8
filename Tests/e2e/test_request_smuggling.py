"""Ambiguous or malformed framing never reaches an origin (RFC 9112 §6.1, §6.3, §5, §2.2, §3.2; RFC 9110 §5.5).

Each request targets the counting origin. The proxy must answer 400, close the connection (its idea of where
the request ends cannot be trusted), and must not have opened a connection to the origin. The body-level cases
(chunk-size errors) hold the proxy to the same rule: the first chunk header is in the same packet as the head.
"""

import pytest

from harness.proxy_status import assert_generated_error
from harness.proxy_under_test import selected_proxy_kind
from harness.raw_http import RawConnection, ResponseIncomplete

# Time the counting origin is given to see a late connection from the proxy.
SETTLE_SECONDS = 0.5

CASES = {
    "content-length-and-transfer-encoding":
        "POST {url} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
        "0\r\n\r\n",
    "transfer-encoding-and-content-length":
        "POST {url} HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n"
        "0\r\n\r\n",
    "two-different-content-lengths":
        "POST {url} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
    "content-length-list-of-different-values":
        "POST {url} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 5, 6\r\n\r\nhello!",
    "content-length-with-plus-sign":
        "POST {url} HTTP/1.1\r\nHost: {host}\r\nContent-Length: +5\r\n\r\nhello",
    "content-length-in-hex":
        "POST {url} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0x5\r\n\r\nhello",
    "content-length-negative":
        "POST {url} HTTP/1.1\r\nHost: {host}\r\nContent-Length: -1\r\n\r\nhello",
    "transfer-encoding-not-ending-in-chunked":
        "POST {url} HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n",
    "transfer-encoding-without-chunked":
        "POST {url} HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: gzip\r\n\r\nhello",
    "transfer-encoding-chunked-twice":
        "POST {url} HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
    "transfer-encoding-misspelled":
        "POST {url} HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n",
    "transfer-encoding-in-http-1.0":
        "POST {url} HTTP/1.0\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "bad-chunk-size":
        "POST {url} HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
    "chunk-size-overflowing-64-bits":
        "POST {url} HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\n\r\n"
        "1ffffffffffffffff\r\nhello\r\n0\r\n\r\n",
    "chunk-size-line-ending-in-bare-lf":
        "POST {url} HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n",
    "bare-lf-line-endings":
        "GET {url} HTTP/1.1\nHost: {host}\n\n",
    "bare-lf-after-one-header":
        "GET {url} HTTP/1.1\r\nHost: {host}\nX-Smuggled: yes\r\n\r\n",
    "bare-cr-in-header-value":
        "GET {url} HTTP/1.1\r\nHost: {host}\r\nX-Test: one\rtwo\r\n\r\n",
    "nul-in-header-value":
        "GET {url} HTTP/1.1\r\nHost: {host}\r\nX-Test: one\0two\r\n\r\n",
    "obs-fold-continuation-line":
        "GET {url} HTTP/1.1\r\nHost: {host}\r\nX-Test: one\r\n two\r\n\r\n",
    "space-before-colon":
        "POST {url} HTTP/1.1\r\nHost: {host}\r\nContent-Length : 5\r\n\r\nhello",
    "empty-header-name":
        "GET {url} HTTP/1.1\r\nHost: {host}\r\n: no-name\r\n\r\n",
    "invalid-character-in-header-name":
        "GET {url} HTTP/1.1\r\nHost: {host}\r\nX(Test): one\r\n\r\n",
    "two-host-headers":
        "GET {url} HTTP/1.1\r\nHost: {host}\r\nHost: other.test\r\n\r\n",
    "missing-host-header":
        "GET {url} HTTP/1.1\r\nX-Test: one\r\n\r\n",
}

# What squid 5.7 does with each case, so the table is validated against a real proxy (E2E_PROXY=squid): the
# status it refuses with, or FORWARDS where it passes the request on, which this test must then catch (strict
# expected failure). Cases squid answers with no response at all are not run against it.
FORWARDS = "forwards"
SQUID_BEHAVIOUR = {
    "content-length-and-transfer-encoding": FORWARDS,
    "transfer-encoding-and-content-length": FORWARDS,
    "two-different-content-lengths": 411,
    "content-length-list-of-different-values": 411,
    "content-length-with-plus-sign": 411,
    "content-length-in-hex": 411,
    "content-length-negative": 411,
    "transfer-encoding-not-ending-in-chunked": 501,
    "transfer-encoding-without-chunked": 501,
    "transfer-encoding-chunked-twice": 501,
    "transfer-encoding-misspelled": 501,
    "bare-lf-line-endings": FORWARDS,
    "obs-fold-continuation-line": FORWARDS,
    "nul-in-header-value": 400,
    "space-before-colon": 400,
    "empty-header-name": 400,
    "invalid-character-in-header-name": 400,
    "two-host-headers": FORWARDS,
}
# An answer to a refused request is immediate; a forwarded one would wait on the silent origin.
RESPONSE_TIMEOUT_SECONDS = 5


def case_params():
    for name, template in CASES.items():
        marks = []
        squid = SQUID_BEHAVIOUR.get(name)
        if squid is not None:
            marks.append(pytest.mark.peers("squid"))
        else:
            marks.append(pytest.mark.peers())
        if squid == FORWARDS and selected_proxy_kind() == "squid":
            marks.append(pytest.mark.xfail(strict=True, reason="squid forwards this request"))
        yield pytest.param(name, template, id=name, marks=marks)


def expected_refusal_status(proxy, case: str) -> int:
    return 400 if proxy.kind == "ipdirect" else SQUID_BEHAVIOUR[case]


@pytest.mark.parametrize("case, template", case_params())
def test_ambiguous_request_gets_400_close_and_never_reaches_the_origin(proxy, network, counting_origin, case,
                                                                       template):
    request = template.format(url=network.counting_url("/smuggle"), host=f"count.test:{network.counting_port}")
    with RawConnection(proxy.address, timeout=RESPONSE_TIMEOUT_SECONDS) as client:
        client.send(request.encode("latin-1"))
        try:
            response = client.read_response()
        except ResponseIncomplete as error:
            pytest.fail(f"no complete response: {error}")
        assert response.status == expected_refusal_status(proxy, case), response.describe()
        if proxy.kind == "ipdirect":
            assert_generated_error(response, 400)
        assert client.closed_by_peer(), "connection left open after an ambiguous request"
    counting_origin.settle(SETTLE_SECONDS)
    assert counting_origin.connection_count == 0, f"the origin was reached: {counting_origin.received()}"

"""Pipelined requests (RFC 9112 §9.3.2) are answered in the order they were sent."""

import pytest

from harness.nginx_origin import INDEX_TEXT, STATIC_PAGE_TEXT
from harness.raw_http import RawConnection, get_request


@pytest.mark.peers("squid")
def test_pipelined_requests_are_answered_in_order(proxy, network):
    authority = network.plain_authority()
    sequence = [
        ("GET", "/echo", lambda r: r.status == 200 and r.text.startswith(f"host={authority} ")),
        ("GET", "/static/page.html", lambda r: r.status == 200 and r.text == STATIC_PAGE_TEXT),
        ("HEAD", "/static/page.html", lambda r: r.status == 200 and r.body == b""),
        ("GET", "/no-content", lambda r: r.status == 204),
        ("GET", "/redirect", lambda r: r.status == 302),
        ("GET", "/", lambda r: r.status == 200 and r.text == INDEX_TEXT),
    ]
    with RawConnection(proxy.address) as client:
        client.send(b"".join(get_request(network.plain_url(path), authority, method=method)
                             for method, path, _ in sequence))
        for index, (method, path, expected) in enumerate(sequence):
            response = client.read_response(method)
            assert expected(response), f"response {index} ({method} {path}) out of order or wrong:\n" \
                                       f"{response.describe()}"

"""Pipelined requests (RFC 9112 §9.3.2) are answered in the order they were sent."""

import pytest

from harness.body_echo_origin import received_request
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


def test_a_request_pipelined_right_after_a_chunked_body_with_trailers_is_answered_next_and_whole(proxy,
                                                                                                 body_echo_origin):
    # The body ends only at the empty line after its trailer fields (RFC 9112 §7.1.2): a proxy that stopped at
    # the last chunk would pass the trailers on as the next request, and one that read on would swallow it.
    url, authority = body_echo_origin.url, body_echo_origin.authority
    chunked = get_request(url("/pipelined/chunked"), authority, "Transfer-Encoding: chunked\r\n", method="POST")
    chunked += b"5\r\nhello\r\n1\r\n!\r\n0\r\nX-Checksum: first\r\nX-Count: 2\r\n\r\n"
    following = get_request(url("/pipelined/after"), authority)
    with RawConnection(proxy.address) as client:
        client.send(chunked + following)
        answers = [received_request(client.read_response("POST")), received_request(client.read_response())]
    assert answers == [
        {"method": "POST", "path": "/pipelined/chunked", "body": "hello!",
         "trailers": [["X-Checksum", "first"], ["X-Count", "2"]]},
        {"method": "GET", "path": "/pipelined/after", "body": "", "trailers": []},
    ]

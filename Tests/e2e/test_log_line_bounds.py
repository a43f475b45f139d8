"""Whatever a client sends, each line it puts in the access or event log stays short: input in a log line is
quoted as a bounded prefix (docs/operating.md "Logs")."""

import pytest

from harness.raw_http import RawConnection, ResponseIncomplete

# Long, yet inside max_header_bytes, so the request is read whole and answered rather than cut off.
LONG_INPUT_BYTES = 20_000
# The longest line one request may produce: a bounded quote of the input plus the line's own fields.
MAX_LOG_LINE_BYTES = 600


def requests_with_long_input(network) -> dict[str, bytes]:
    url, authority = network.plain_url(), network.plain_authority()
    long = "x" * LONG_INPUT_BYTES
    return {
        "method": f"{long.upper()} {url} HTTP/1.1\r\nHost: {authority}\r\n\r\n",
        "path": f"GET {network.plain_url('/' + long)} HTTP/1.1\r\nHost: {authority}\r\n\r\n",
        "absolute-form-host": f"GET http://{long}.test/ HTTP/1.1\r\nHost: {authority}\r\n\r\n",
        "connect-host": f"CONNECT {long}.test:443 HTTP/1.1\r\nHost: {long}.test:443\r\n\r\n",
        "field-value": f"GET {url} HTTP/1.1\r\nHost: {authority}\r\nX-Long: {long}\r\n\r\n",
    }


@pytest.mark.parametrize("where", ["method", "path", "absolute-form-host", "connect-host", "field-value"])
def test_a_request_with_20_kilobytes_of_input_logs_only_short_lines(proxy, network, where):
    with RawConnection(proxy.address) as client:
        client.send(requests_with_long_input(network)[where].encode())
        try:
            client.read_response()
        except ResponseIncomplete:
            pass  # closed without an answer: still logged
    proxy.wait_for_access_log("status=")
    lines = proxy.stderr_since_mark().splitlines() + proxy.access_log_since_mark().splitlines()
    long_lines = [line for line in lines if len(line.encode()) > MAX_LOG_LINE_BYTES]
    assert not long_lines, f"{len(long_lines)} log lines over {MAX_LOG_LINE_BYTES} bytes, the first " \
                           f"{len(long_lines[0].encode())} bytes long: {long_lines[0][:300]}..."

"""A plain-HTTP Upgrade answered 101 turns the connection into a tunnel (RFC 9110 §7.8)."""

from harness.raw_http import RawConnection
from harness.websocket_client import OPCODE_CLOSE, OPCODE_TEXT, handshake, masked_frame, read_frame

# Sizes that exercise each WebSocket length encoding (7-bit, 16-bit, 64-bit; RFC 6455 §5.2).
MESSAGE_SIZES = (5, 300, 70_000)
# RFC 6455 §7.4.1 normal closure.
CLOSE_NORMAL = b"\x03\xe8"


def test_websocket_echo_round_trips_through_an_absolute_form_upgrade(proxy, network):
    url = network.plain_url("/ws")
    with RawConnection(proxy.address) as client:
        response, expected_accept = handshake(client, url, network.plain_authority())
        assert response.status == 101, response.describe()
        assert response.header("Upgrade").lower() == "websocket"
        assert response.header("Sec-WebSocket-Accept") == expected_accept
        for size in MESSAGE_SIZES:
            message = (f"message of {size} bytes ".encode() * size)[:size]
            client.send(masked_frame(OPCODE_TEXT, message))
            assert read_frame(client) == (OPCODE_TEXT, message)
        client.send(masked_frame(OPCODE_CLOSE, CLOSE_NORMAL))
        opcode, _ = read_frame(client)
        assert opcode == OPCODE_CLOSE
        assert client.closed_by_peer(timeout=5), "tunnel not closed after the WebSocket close handshake"
    proxy.wait_for_access_log("GET", network.plain_authority(), "101")

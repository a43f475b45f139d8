"""Just enough of an RFC 6455 client to send an absolute-form Upgrade request through a forward proxy.

Libraries send origin-form requests; a plain-HTTP forward proxy needs `GET http://host/path` (RFC 9112
§3.2.2), so the handshake and frames are written here by hand.
"""

import base64
import hashlib
import os
import struct

from .raw_http import RawConnection, RawResponse

# RFC 6455 §1.3: the GUID appended to the key before hashing.
HANDSHAKE_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OPCODE_TEXT = 0x1
OPCODE_CLOSE = 0x8
FINAL_FRAME = 0x80
MASKED = 0x80
# RFC 6455 §7.4.1 normal closure.
CLOSE_NORMAL = b"\x03\xe8"
# Sizes that exercise each payload length encoding (7-bit, 16-bit, 64-bit; RFC 6455 §5.2).
ECHO_MESSAGE_SIZES = (5, 300, 70_000)
# RFC 6455 §5.2 payload length encodings.
SEVEN_BIT_LIMIT = 125
SIXTEEN_BIT_MARKER = 126
SIXTY_FOUR_BIT_MARKER = 127


def upgrade_request(url: str, authority: str) -> tuple[bytes, str]:
    """The handshake request and the Sec-WebSocket-Accept value the server must answer with."""
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET {url} HTTP/1.1\r\nHost: {authority}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()
    expected_accept = base64.b64encode(hashlib.sha1(key.encode() + HANDSHAKE_GUID).digest()).decode()
    return request, expected_accept


def masked_frame(opcode: int, payload: bytes) -> bytes:
    """Client-to-server frames must be masked (RFC 6455 §5.3)."""
    mask = os.urandom(4)
    length = len(payload)
    if length <= SEVEN_BIT_LIMIT:
        header = struct.pack("!BB", FINAL_FRAME | opcode, MASKED | length)
    elif length < 1 << 16:
        header = struct.pack("!BBH", FINAL_FRAME | opcode, MASKED | SIXTEEN_BIT_MARKER, length)
    else:
        header = struct.pack("!BBQ", FINAL_FRAME | opcode, MASKED | SIXTY_FOUR_BIT_MARKER, length)
    masked = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
    return header + mask + masked


def read_frame(connection: RawConnection) -> tuple[int, bytes]:
    """One unmasked server frame: (opcode, payload)."""
    first, second = connection._read_exactly(2)
    length = second & 0x7F
    if length == SIXTEEN_BIT_MARKER:
        (length,) = struct.unpack("!H", connection._read_exactly(2))
    elif length == SIXTY_FOUR_BIT_MARKER:
        (length,) = struct.unpack("!Q", connection._read_exactly(8))
    return first & 0x0F, connection._read_exactly(length)


def handshake(connection: RawConnection, url: str, authority: str) -> tuple[RawResponse, str]:
    request, expected_accept = upgrade_request(url, authority)
    connection.send(request)
    return connection.read_response("GET"), expected_accept


def assert_echo_round_trips(connection: RawConnection, url: str, authority: str) -> None:
    """Handshake, echo one message of each length encoding, close; fails on any deviation."""
    response, expected_accept = handshake(connection, url, authority)
    assert response.status == 101, response.describe()
    assert (response.header("Upgrade") or "").lower() == "websocket", response.describe()
    assert response.header("Sec-WebSocket-Accept") == expected_accept, response.describe()
    for size in ECHO_MESSAGE_SIZES:
        message = (f"message of {size} bytes ".encode() * size)[:size]
        connection.send(masked_frame(OPCODE_TEXT, message))
        assert read_frame(connection) == (OPCODE_TEXT, message)
    connection.send(masked_frame(OPCODE_CLOSE, CLOSE_NORMAL))
    opcode, _ = read_frame(connection)
    assert opcode == OPCODE_CLOSE
    assert connection.closed_by_peer(timeout=5), "connection not closed after the WebSocket close handshake"

"""SOCKS5 (RFC 1928) and SOCKS4/4a messages byte for byte, for the raw-socket tests that send what no client
library would, and a reader of what comes back."""

import ipaddress
import socket
import struct
from dataclasses import dataclass

SOCKS5_VERSION = 0x05
SOCKS4_VERSION = 0x04
NO_AUTHENTICATION = 0x00
# RFC 1928 §4 CMD.
CONNECT, BIND, UDP_ASSOCIATE = 0x01, 0x02, 0x03
# RFC 1928 §5 ATYP.
ATYP_IPV4, ATYP_DOMAIN, ATYP_IPV6 = 0x01, 0x03, 0x04
# RFC 1928 §6 REP.
SUCCEEDED = 0x00
NOT_ALLOWED = 0x02
HOST_UNREACHABLE = 0x04
CONNECTION_REFUSED = 0x05
TTL_EXPIRED = 0x06
COMMAND_NOT_SUPPORTED = 0x07
ADDRESS_TYPE_NOT_SUPPORTED = 0x08
# SOCKS4 CD of a reply.
SOCKS4_GRANTED, SOCKS4_REJECTED = 0x5A, 0x5B
SOCKS4_REPLY_BYTES = 8
# What a proxy may send after a refusal before it closes: one reply, and a little slack to see anything more.
READ_LIMIT_BYTES = 4096

GREETING = bytes([SOCKS5_VERSION, 1, NO_AUTHENTICATION])
GREETING_REPLY = bytes([SOCKS5_VERSION, NO_AUTHENTICATION])


def socks5_request(host: str, port: int, command: int = CONNECT) -> bytes:
    """A request for `host` (an IP literal goes as ATYP 1 or 4, a name as ATYP 3)."""
    try:
        address = ipaddress.ip_address(host)
        atyp = ATYP_IPV4 if address.version == 4 else ATYP_IPV6
        destination = bytes([atyp]) + address.packed
    except ValueError:
        name = host.encode()
        destination = bytes([ATYP_DOMAIN, len(name)]) + name
    return bytes([SOCKS5_VERSION, command, 0]) + destination + struct.pack(">H", port)


def socks4a_request(name: bytes, port: int, user: bytes = b"") -> bytes:
    """SOCKS4a: DSTIP 0.0.0.1 says a name follows the user id; `name` is sent as given (its NUL too, if any)."""
    return bytes([SOCKS4_VERSION, CONNECT]) + struct.pack(">H", port) + bytes([0, 0, 0, 1]) + user + b"\0" + name


def socks4_request(address: str, port: int) -> bytes:
    return bytes([SOCKS4_VERSION, CONNECT]) + struct.pack(">H", port) + ipaddress.IPv4Address(address).packed + b"\0"


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the proxy sends until it closes (a reset counts as closing); the socket's timeout fails a
    proxy that never closes."""
    received = b""
    while len(received) <= READ_LIMIT_BYTES:
        try:
            block = sock.recv(READ_LIMIT_BYTES)
        except ConnectionResetError:
            return received
        if not block:
            return received
        received += block
    raise AssertionError(f"the proxy sent more than {READ_LIMIT_BYTES} bytes and did not close: {received[:64]!r}")


def read_exactly(sock: socket.socket, count: int) -> bytes:
    received = b""
    while len(received) < count:
        block = sock.recv(count - len(received))
        if not block:
            raise AssertionError(f"the proxy closed after {received!r}; {count} bytes were expected")
        received += block
    return received


@dataclass(frozen=True)
class Socks5Reply:
    """VER REP RSV ATYP BND.ADDR BND.PORT, with an IPv4 or IPv6 bound address."""
    code: int
    raw: bytes

    @classmethod
    def read(cls, sock: socket.socket) -> "Socks5Reply":
        head = read_exactly(sock, 4)
        assert head[0] == SOCKS5_VERSION and head[2] == 0, f"not a SOCKS5 reply: {head!r}"
        assert head[3] in (ATYP_IPV4, ATYP_IPV6), f"unexpected bound address type in {head!r}"
        rest = read_exactly(sock, (4 if head[3] == ATYP_IPV4 else 16) + 2)
        return cls(head[1], head + rest)

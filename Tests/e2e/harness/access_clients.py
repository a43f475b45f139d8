"""Clients for the login and client-ACL tests: raw connections from a chosen loopback source address, Basic
proxy credentials, byte-exact SOCKS5 (RFC 1928, RFC 1929) and SOCKS4a messages, and curl through the proxy.

All of 127.0.0.0/8 routes to `lo` on Linux, so a socket bound to 127.0.0.2 reaches a listener on 127.0.0.1 and
the proxy sees 127.0.0.2 as the client address: one machine plays clients inside and outside `[access] clients`.
"""

import base64
import socket
import subprocess

from .raw_http import RawConnection, RawResponse, get_request

SOCKET_TIMEOUT_SECONDS = 10.0
CURL_TIMEOUT_SECONDS = 20
# The challenge docs/behaviour.md promises for every 407.
BASIC_CHALLENGE = 'Basic realm="ipdirect", charset="UTF-8"'

# SOCKS5 method numbers (RFC 1928 §3) and reply codes (§6).
SOCKS5_NO_AUTHENTICATION = 0x00
SOCKS5_USERNAME_PASSWORD = 0x02
SOCKS5_NO_ACCEPTABLE_METHODS = 0xFF
SOCKS5_SUCCEEDED = 0x00
SOCKS5_NOT_ALLOWED_BY_RULESET = 0x02
# SOCKS4 "request rejected or failed".
SOCKS4_REJECTED = 0x5B


def basic_credentials(user: str, password: str) -> str:
    """The value of RFC 7617 Basic credentials: `Basic base64(user:password)`."""
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def proxy_authorization(user: str, password: str) -> str:
    """The request field line that carries Basic credentials for the proxy."""
    return f"Proxy-Authorization: {basic_credentials(user, password)}\r\n"


def connect_from(source: str, address: tuple[str, int]) -> socket.socket:
    """A TCP connection to `address` whose source address is `source` (any free port)."""
    return socket.create_connection(address, timeout=SOCKET_TIMEOUT_SECONDS, source_address=(source, 0))


def fetch_from(source: str, address: tuple[str, int], url: str, authority: str,
               extra_headers: str = "") -> RawResponse:
    """One absolute-form GET through the proxy at `address` from `source`, on a connection of its own."""
    with RawConnection.over(connect_from(source, address)) as client:
        client.send(get_request(url, authority, "Connection: close\r\n" + extra_headers))
        return client.read_response()


def receive_exactly(sock: socket.socket, length: int) -> bytes:
    """`length` bytes, or fewer if the peer closes first."""
    data = b""
    while len(data) < length:
        block = sock.recv(length - len(data))
        if not block:
            break
        data += block
    return data


def closed_by_peer(sock: socket.socket) -> bool:
    """True when the peer closes (EOF or reset) without sending anything more."""
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def socks5_greeting(*methods: int) -> bytes:
    return bytes([5, len(methods), *methods])


def socks5_login(user: str, password: str) -> bytes:
    """RFC 1929 §2: version 1, then the user name and the password, each after its length."""
    return bytes([1, len(user)]) + user.encode() + bytes([len(password)]) + password.encode()


def socks5_connect(host: str, port: int) -> bytes:
    """A CONNECT to a domain name (address type 3), as `socks5h://` clients send it."""
    return bytes([5, 1, 0, 3, len(host)]) + host.encode() + port.to_bytes(2, "big")


def socks5_reply_code(sock: socket.socket) -> int:
    """The REP field of a SOCKS5 reply (its bound address is read and dropped); -1 if the proxy closed first."""
    head = receive_exactly(sock, 4)
    if len(head) < 4:
        return -1
    address_lengths = {1: 4, 4: 16}
    length = address_lengths.get(head[3]) or receive_exactly(sock, 1)[0]
    receive_exactly(sock, length + 2)
    return head[1]


def socks4a_connect(host: str, port: int, user_id: str = "e2e") -> bytes:
    """SOCKS4a: the address 0.0.0.1 says the name follows the user id, each NUL-terminated."""
    return bytes([4, 1]) + port.to_bytes(2, "big") + bytes([0, 0, 0, 1]) + user_id.encode() + b"\0" \
        + host.encode() + b"\0"


def curl(*arguments: str) -> subprocess.CompletedProcess:
    """curl with the given proxy and URL arguments; the body on stdout, then a line with the status."""
    return subprocess.run(["curl", "--silent", "--show-error", "--max-time", str(CURL_TIMEOUT_SECONDS),
                           "--noproxy", "", "--write-out", "\nstatus=%{http_code}", *arguments],
                          capture_output=True, text=True, timeout=CURL_TIMEOUT_SECONDS + 10,
                          stdin=subprocess.DEVNULL)


def curl_status(completed: subprocess.CompletedProcess) -> int:
    """The status curl's --write-out line reports (0 when no response came)."""
    return int(completed.stdout.rsplit("status=", 1)[-1].strip() or 0)

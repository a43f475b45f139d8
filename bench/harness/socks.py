"""Whether a server speaks SOCKS5: it must answer a greeting offering only "no authentication" (RFC 1928 §3)
by choosing that method. A server that answers anything else, closes, or waits cannot be asked for a SOCKS5
tunnel, and its SOCKS5 cells say "cannot" with what it did instead."""

import socket

SOCKS_VERSION = 5
NO_AUTHENTICATION = 0
# VER 5, one method offered, method 0: no authentication required.
GREETING = bytes([SOCKS_VERSION, 1, NO_AUTHENTICATION])
CHOSEN_NO_AUTHENTICATION = bytes([SOCKS_VERSION, NO_AUTHENTICATION])
# An HTTP proxy may wait for the rest of a request line that never comes; this bounds the wait.
PROBE_TIMEOUT_SECONDS = 3
RECEIVE_CHUNK = 512
# How much of an unexpected answer the note quotes.
QUOTED_BYTES = 60
# Printable ASCII, space to tilde.
PRINTABLE_FIRST, PRINTABLE_LAST = 0x20, 0x7E


def socks5_refusal(port, host="127.0.0.1"):
    """None when the server at host:port chose "no authentication" for the greeting; otherwise what it did."""
    try:
        with socket.create_connection((host, port), timeout=PROBE_TIMEOUT_SECONDS) as connection:
            connection.sendall(GREETING)
            answer = b""
            while len(answer) < len(CHOSEN_NO_AUTHENTICATION):
                chunk = connection.recv(RECEIVE_CHUNK)
                if not chunk:
                    break
                answer += chunk
    except socket.timeout:
        return f"did not answer a SOCKS5 greeting within {PROBE_TIMEOUT_SECONDS} s"
    except OSError as error:
        return f"failed the SOCKS5 greeting: {error}"
    if answer[:len(CHOSEN_NO_AUTHENTICATION)] == CHOSEN_NO_AUTHENTICATION:
        return None
    if not answer:
        return "closed the connection on a SOCKS5 greeting without answering"
    return f"answered a SOCKS5 greeting with {_quote(answer)}"


def _quote(answer):
    """The first line when it is printable ASCII (an HTTP status line, say), else the first bytes in hex."""
    line = answer.split(b"\n")[0].rstrip(b"\r")
    if line and all(PRINTABLE_FIRST <= byte <= PRINTABLE_LAST for byte in line):
        return f'"{line[:QUOTED_BYTES].decode("ascii")}"'
    return answer[:QUOTED_BYTES].hex(" ")

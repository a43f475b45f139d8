"""Opening a CONNECT tunnel through a proxy by hand, and reading one unlabelled sample of an ipdirect
instance's /metrics."""

import socket

import requests
from prometheus_client.parser import text_string_to_metric_families


def open_connect_tunnel(proxy_address: tuple[str, int], authority: str, timeout: float) -> socket.socket:
    """Sends CONNECT for `authority` and reads the proxy's answer up to its blank line; fails unless it is a 200."""
    client = socket.create_connection(proxy_address, timeout=timeout)
    client.sendall(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
    reply = b""
    while b"\r\n\r\n" not in reply:
        chunk = client.recv(4096)
        assert chunk, f"the proxy closed the tunnel request for {authority}: {reply!r}"
        reply += chunk
    assert reply.startswith(b"HTTP/1.1 200"), reply
    return client


def unlabelled_metric(own, name: str, timeout: float = 10) -> float:
    """The value of the sample `name` without labels on `own`'s admin /metrics."""
    text = requests.get(own.admin_url("/metrics"), timeout=timeout).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and not sample.labels:
                return sample.value
    raise AssertionError(f"/metrics has no {name}")

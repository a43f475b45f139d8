"""A client inside a test's network namespace: requests through a `NamespacedIpdirect`, CONNECT tunnels, and
reads of its admin listener. Every socket is opened from inside the namespace (`NetworkNamespace.entered`).

`get` sends `Connection: close`, so every request comes on a client connection of its own; `keep_alive()`
gives a requests.Session whose one connection to the proxy is reused.
"""

import socket
import time
from dataclasses import dataclass

import requests

from .identity_origins import IDENTITY_HEADER
from .namespaced_ipdirect import NamespacedIpdirect
from .raw_http import RawConnection, RawResponse, get_request

# Generous: a request through a proxy on loopback takes milliseconds, a raced dead address ~a quarter second.
REQUEST_TIMEOUT_SECONDS = 10.0
ADMIN_TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True)
class Answer:
    status: int
    # The origin address that answered (its identity header), '' for a proxy-generated response.
    origin: str
    seconds: float


class NamespaceClient:
    def __init__(self, proxy: NamespacedIpdirect):
        self.proxy = proxy
        self.namespace = proxy.namespace

    # Requests through the proxy ----------------------------------------------------------------------------
    def get(self, url: str) -> Answer:
        """One absolute-form GET through the proxy on a new connection, closed after the response."""
        with self.namespace.entered():
            started = time.monotonic()
            response = requests.get(url, proxies=self.proxy.proxies, headers={"Connection": "close"},
                                    timeout=REQUEST_TIMEOUT_SECONDS)
            seconds = time.monotonic() - started
        return Answer(response.status_code, response.headers.get(IDENTITY_HEADER, ""), seconds)

    def get_absolute(self, url: str, authority: str) -> Answer:
        """One absolute-form GET written byte by byte, for https:// targets the proxy itself speaks TLS for
        (a library would tunnel those through CONNECT instead)."""
        with self.namespace.entered():
            started = time.monotonic()
            connection = RawConnection(self.proxy.address, timeout=REQUEST_TIMEOUT_SECONDS)
        with connection:
            connection.send(get_request(url, authority, "Connection: close\r\n"))
            response = connection.read_response()
            seconds = time.monotonic() - started
        return Answer(response.status, response.header(IDENTITY_HEADER) or "", seconds)

    def keep_alive(self) -> "KeepAliveClient":
        return KeepAliveClient(self)

    def get_through_tunnel(self, authority: str, path: str = "/") -> Answer:
        """CONNECT `authority` through the proxy, then one GET inside the tunnel; timed from the CONNECT."""
        with self.namespace.entered():
            started = time.monotonic()
            client = socket.create_connection(self.proxy.address, timeout=REQUEST_TIMEOUT_SECONDS)
        with RawConnection.over(client) as connection:
            connection.send(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
            reply = connection.read_response("CONNECT")
            if reply.status != 200:
                return Answer(reply.status, "", time.monotonic() - started)
            connection.send(get_request(path, authority, "Connection: close\r\n"))
            response: RawResponse = connection.read_response()
            seconds = time.monotonic() - started
        return Answer(response.status, response.header(IDENTITY_HEADER) or "", seconds)

    # The admin listener -------------------------------------------------------------------------------------
    def admin_get(self, path: str) -> requests.Response:
        with self.namespace.entered():
            return requests.get(self.proxy.admin_url(path), timeout=ADMIN_TIMEOUT_SECONDS)

    def admin_json(self, path: str) -> dict:
        response = self.admin_get(path)
        assert response.status_code == 200, f"GET {path}: {response.status_code} {response.text[:500]}"
        return response.json()


class KeepAliveClient:
    """One requests.Session through the proxy: its connection to the proxy stays open between requests."""

    def __init__(self, client: NamespaceClient):
        self._client = client
        self._session = requests.Session()
        self._session.trust_env = False
        self._session.proxies = client.proxy.proxies

    def get(self, url: str) -> Answer:
        with self._client.namespace.entered():
            started = time.monotonic()
            response = self._session.get(url, timeout=REQUEST_TIMEOUT_SECONDS)
            seconds = time.monotonic() - started
        return Answer(response.status_code, response.headers.get(IDENTITY_HEADER, ""), seconds)

    def close(self) -> None:
        self._session.close()

    def __enter__(self) -> "KeepAliveClient":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

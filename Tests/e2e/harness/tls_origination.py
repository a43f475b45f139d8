"""What the TLS origination tests share: the config keys they add, the origin page they read, and the check on
the 502 a failed upstream handshake must produce.

ipdirect speaks TLS upstream itself for an absolute-form `https://` request on a plain proxy connection and for
`http://` requests to hosts named in `[upstream] https_upgrade`. It connects to the address from its own
resolution and verifies the certificate for the host name the client asked for (RFC 6125), sending that name
as SNI (RFC 6066 §3).
"""

import json
from dataclasses import dataclass

from .ipdirect_proxy import ConfigAdditions
from .proxy_status import assert_generated_error
from .raw_http import RawConnection, RawResponse, get_request

# RFC 9209 §2.3.2: how ipdirect labels a failed upstream handshake.
CERTIFICATE_ERROR = "tls_certificate_error"
PROTOCOL_ERROR = "tls_protocol_error"
# What every page of the HTTPS origin starts with; a failed handshake must never yield it.
PAGE_MARKER = "vhost="
# nginx's $ssl_session_reused: "r" for a resumed TLS session, "." for a full handshake.
SESSION_RESUMED = "r"
FULL_HANDSHAKE = "."
# A handshake plus one request on a busy machine, with room for a slow debug build.
REQUEST_TIMEOUT_SECONDS = 30


def tls_origination_additions(https_upgrade: list[str] = (), pins: dict[str, list[str]] | None = None,
                              insecure_hosts: list[str] = (),
                              upstream_max_idle_per_host: int | None = None,
                              workers: int | None = None) -> ConfigAdditions:
    """Config keys for TLS origination; anything left at its default is not written at all."""
    proxy_keys = {} if workers is None else {"workers": workers}
    if upstream_max_idle_per_host is not None:
        proxy_keys["upstream_max_idle_per_host"] = upstream_max_idle_per_host
    tls_keys = {"insecure_hosts": list(insecure_hosts)} if insecure_hosts else {}
    sections = ""
    if https_upgrade:
        sections += f"\n[upstream]\nhttps_upgrade = {json.dumps(list(https_upgrade))}\n"
    for host, spki_hashes in (pins or {}).items():
        sections += f"\n[[tls.pin]]\nhost = {json.dumps(host)}\nspki_sha256 = {json.dumps(list(spki_hashes))}\n"
    return ConfigAdditions(proxy_keys=proxy_keys, tls_keys=tls_keys, sections=sections)


@dataclass(frozen=True)
class OriginPage:
    """One page of the HTTPS origin: "vhost=a.test sni=a.test session_reused=. host=... connection=7
    requests=1". `connection` is nginx's serial number of the TCP connection the request came on."""
    vhost: str
    sni: str
    session_reused: str
    host: str
    connection: int
    requests: int

    @classmethod
    def parse(cls, response: RawResponse) -> "OriginPage":
        assert response.status == 200, f"expected the origin's page, got:\n{response.describe()}"
        assert response.text.startswith(PAGE_MARKER), f"not a page of the HTTPS origin:\n{response.describe()}"
        fields = dict(pair.split("=", 1) for pair in response.text.split())
        return cls(vhost=fields["vhost"], sni=fields["sni"], session_reused=fields["session_reused"],
                   host=fields["host"], connection=int(fields["connection"]), requests=int(fields["requests"]))


def fetch(proxy_address: tuple[str, int], url: str, authority: str, extra_headers: str = "") -> RawResponse:
    """One request on a new client connection."""
    with RawConnection(proxy_address, timeout=REQUEST_TIMEOUT_SECONDS) as client:
        client.send(get_request(url, authority, extra_headers))
        return client.read_response()


def fetch_page(proxy_address: tuple[str, int], url: str, authority: str) -> OriginPage:
    return OriginPage.parse(fetch(proxy_address, url, authority))


def assert_tls_failure(response: RawResponse, host: str, address: str, error_type: str,
                       reasons: tuple[tuple[str, ...], ...]) -> None:
    """A 502 from ipdirect with this RFC 9209 error type, naming the host and the ip:port it connected to,
    and for each group in `reasons` at least one of its wordings (case aside); never the origin's page."""
    assert PAGE_MARKER not in response.text, f"the origin's page came through:\n{response.describe()}"
    assert_generated_error(response, 502, {error_type}, mentions=(host, address))
    searchable = (response.text + " " + (response.header("Proxy-Status") or "")).lower()
    for wordings in reasons:
        assert any(wording.lower() in searchable for wording in wordings), \
            f"none of {wordings!r} is said in the body or Proxy-Status:\n{response.describe()}"

"""Every HTTPDNS flavour the tests point ipdirect at, each as one `ProviderSetup`: the `[[resolver.httpdns]]`
table, the environment and credential files it needs, and the real server behind it, which takes records and
counts the queries it gets.

Kinds (`PROVIDER_KINDS`):
- `unbound-get`, `unbound-post`: RFC 8484 to unbound (HTTP/2 only), by GET and by POST.
- `dnsdist-h2-get`, `dnsdist-h2-post`: RFC 8484 to dnsdist's TLS listener, which negotiates h2.
- `dnsdist-http1-get`, `dnsdist-http1-post`: RFC 8484 to dnsdist's cleartext listener (HTTP/1.1).
- `json-google`, `json-cloudflare`: the JSON API on the stub, at `/resolve` and at `/dns-query`.
- `aliyun`: unsigned; `aliyun-signed-env` / `aliyun-signed-file`: signed, the secret from an environment
  variable or from a file.
- `tencent`: plain; `tencent-token`: the HTTPS form on the TLS stub with a token from a file;
  `tencent-des` (key from a file) and `tencent-aes` (key from an environment variable): the encrypted form.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .httpdns_stubs import (ALIYUN_ACCOUNT_ID, ALIYUN_SECRET, ALIYUN_SIGNED_ACCOUNT_ID, TENCENT_AES_KEY,
                            TENCENT_AES_KEY_ID, TENCENT_DES_KEY, TENCENT_DES_KEY_ID, TENCENT_TOKEN, HttpdnsStub)
from .resolver_config import HttpdnsProvider
from .unbound_doh import DEFAULT_TTL

# The names of the environment variables the `*-env` kinds read their secret from.
ALIYUN_SECRET_VARIABLE = "IPDIRECT_E2E_ALIYUN_SECRET"
TENCENT_KEY_VARIABLE = "IPDIRECT_E2E_TENCENT_KEY"

PROVIDER_KINDS = ("unbound-get", "unbound-post", "dnsdist-h2-get", "dnsdist-h2-post", "dnsdist-http1-get",
                  "dnsdist-http1-post", "json-google", "json-cloudflare", "aliyun", "aliyun-signed-env",
                  "aliyun-signed-file", "tencent", "tencent-token", "tencent-des", "tencent-aes")
# The secrets a setup hands ipdirect; none may ever show up in its output.
SECRETS = (ALIYUN_SECRET, TENCENT_TOKEN, TENCENT_DES_KEY.decode(), TENCENT_AES_KEY.decode())


@dataclass(frozen=True)
class Transport:
    """What a DoH setup must be seen to use on the wire: an HTTP version and a method, as dnsdist counts them
    (`HTTP/1` or `HTTP/2`; `GET` or `POST`) on the listener `listener`."""
    listener: str
    http_version: str
    method: str


@dataclass
class ProviderSetup:
    kind: str
    provider: HttpdnsProvider
    # Sets `name`'s addresses at the server (an empty family: none of that type).
    publish: Callable[[str, tuple[str, ...], tuple[str, ...], int], None]
    # Queries the server got for a name, asking for a record type (a request for both counts for each).
    queries: Callable[[str, str], int]
    environment: dict[str, str] = field(default_factory=dict)
    # Set for the dnsdist kinds, whose listener counters show the HTTP version and method used.
    transport: Transport | None = None
    frontend_stats: Callable[[], dict[str, dict[str, int]]] | None = None
    # The stub's request log for this setup's format, to check how ipdirect asked; None for DoH servers.
    stub: HttpdnsStub | None = None
    stub_format: str = ""
    # What every request target of this setup must contain, e.g. the encrypted form's `id=` and `alg=`.
    target_fragments: tuple[str, ...] = ()
    # The encrypted form: the name asked must not appear in clear in the request.
    hides_name: bool = False

    @property
    def name(self) -> str:
        return self.provider.name

    def set_addresses(self, name: str, a: tuple[str, ...] = (), aaaa: tuple[str, ...] = (),
                      ttl: int = DEFAULT_TTL) -> None:
        self.publish(name, tuple(a), tuple(aaaa), ttl)

    def stub_targets(self, name: str) -> list[str]:
        """The request targets (path and query) the stub got for `name`."""
        if self.stub is None:
            return []
        return [request.target for request in self.stub.state.requests(self.stub_format) if request.name == name]


def _publish_to_unbound(unbound):
    def publish(name: str, a: tuple[str, ...], aaaa: tuple[str, ...], ttl: int) -> None:
        for record_type, addresses in (("A", a), ("AAAA", aaaa)):
            if addresses:
                unbound.set_record(name, record_type, list(addresses), ttl)
    return publish


def _publish_to_stub(stub: HttpdnsStub):
    def publish(name: str, a: tuple[str, ...], aaaa: tuple[str, ...], ttl: int) -> None:
        stub.set_record(name, a=a, aaaa=aaaa, ttl=ttl)
    return publish


def doh_setup(kind: str, unbound, dnsdist, ca_file: Path) -> ProviderSetup:
    server, method = kind.rsplit("-", 1)
    transport, stats = None, None
    if server == "unbound":
        url, bootstrap = unbound.url, unbound.bootstrap
    else:
        tls = server == "dnsdist-h2"
        url = dnsdist.url if tls else dnsdist.plain_url
        bootstrap = dnsdist.bootstrap
        listener = dnsdist.tls_listener if tls else dnsdist.plain_listener
        transport = Transport(listener, "HTTP/2" if tls else "HTTP/1", method.upper())
        stats = dnsdist.frontend_stats
    # A cleartext URL takes no ca_file at all.
    own_ca_file = ca_file if url.startswith("https://") else None
    provider = HttpdnsProvider(kind, "doh", url, [bootstrap], own_ca_file, method=method)
    return ProviderSetup(kind, provider, _publish_to_unbound(unbound), unbound.query_count, transport=transport,
                         frontend_stats=stats)


def stub_setup(kind: str, stub: HttpdnsStub, tls_stub: HttpdnsStub | None, secret_directory: Path,
               ca_file: Path) -> ProviderSetup:
    """The json, aliyun and tencent kinds; `tls_stub` only for `tencent-token`."""
    environment: dict[str, str] = {}
    server = stub
    fragments: tuple[str, ...] = ()
    if kind.startswith("json"):
        format_name = "json"
        provider = HttpdnsProvider(kind, "json", stub.url(kind), [stub.bootstrap])
    elif kind.startswith("aliyun"):
        format_name = "aliyun"
        if kind == "aliyun":
            # The service is named by its address, as the vendor's own plain endpoints are: no bootstrap.
            provider = HttpdnsProvider(kind, "aliyun", stub.url("aliyun"), account_id=ALIYUN_ACCOUNT_ID)
            fragments = (f"/{ALIYUN_ACCOUNT_ID}/d?",)
        elif kind == "aliyun-signed-env":
            fragments = (f"/{ALIYUN_SIGNED_ACCOUNT_ID}/sign_d?",)
            environment[ALIYUN_SECRET_VARIABLE] = ALIYUN_SECRET
            provider = HttpdnsProvider(kind, "aliyun", stub.url("aliyun"), [stub.bootstrap],
                                       account_id=ALIYUN_SIGNED_ACCOUNT_ID, secret_env=ALIYUN_SECRET_VARIABLE)
        else:
            fragments = (f"/{ALIYUN_SIGNED_ACCOUNT_ID}/sign_d?",)
            secret_file = _write_secret(secret_directory, "aliyun.secret", ALIYUN_SECRET.encode())
            provider = HttpdnsProvider(kind, "aliyun", stub.url("aliyun"), [stub.bootstrap],
                                       account_id=ALIYUN_SIGNED_ACCOUNT_ID, secret_file=secret_file)
    else:
        format_name = "tencent"
        if kind == "tencent":
            provider = HttpdnsProvider(kind, "tencent", stub.url("tencent"))
        elif kind == "tencent-token":
            assert tls_stub is not None, "tencent-token needs the TLS stub"
            server = tls_stub
            fragments = (f"token={TENCENT_TOKEN}",)
            token_file = _write_secret(secret_directory, "tencent.token", TENCENT_TOKEN.encode())
            provider = HttpdnsProvider(kind, "tencent", tls_stub.url("tencent"), [tls_stub.bootstrap],
                                       ca_file=ca_file, token_file=token_file)
        elif kind == "tencent-des":
            fragments = (f"id={TENCENT_DES_KEY_ID}", "alg=des")
            key_file = _write_secret(secret_directory, "tencent-des.key", TENCENT_DES_KEY)
            provider = HttpdnsProvider(kind, "tencent", stub.url("tencent"), [stub.bootstrap],
                                       secret_file=key_file, key_id=TENCENT_DES_KEY_ID, alg="des")
        else:
            fragments = (f"id={TENCENT_AES_KEY_ID}", "alg=aes")
            environment[TENCENT_KEY_VARIABLE] = TENCENT_AES_KEY.decode()
            provider = HttpdnsProvider(kind, "tencent", stub.url("tencent"), [stub.bootstrap],
                                       secret_env=TENCENT_KEY_VARIABLE, key_id=TENCENT_AES_KEY_ID, alg="aes")

    def queries(name: str, record_type: str) -> int:
        return server.count(format_name, name, record_type)

    return ProviderSetup(kind, provider, _publish_to_stub(server), queries, environment, stub=server,
                         stub_format=format_name, target_fragments=fragments,
                         hides_name=kind in ("tencent-des", "tencent-aes"))


def _write_secret(directory: Path, file_name: str, secret: bytes) -> Path:
    """The secret alone, without a trailing newline, readable by its owner only."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / file_name
    path.write_bytes(secret)
    path.chmod(0o600)
    return path

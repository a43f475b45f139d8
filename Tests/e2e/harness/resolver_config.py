"""`[[resolver.httpdns]]` tables for an ipdirect configuration, one per provider, rendered from values.

Keys as the configuration reference names them: name, format (doh, json, aliyun, tencent, dot), url, bootstrap,
ca_file, spki_sha256 (key pins, https and tls URLs), timeout_ms, method (doh only), account_id (aliyun), secret_file/secret_env (aliyun signing secret,
tencent key), token_file/token_env (tencent HTTPS form), key_id and alg (tencent encrypted form), domains (the
names a provider is limited to) and client_subnet (sent as ECS / ip=). A key left
None is not written, so ipdirect's default applies. Pass the result as `ConfigAdditions.sections`, and the
order (`resolver_keys={"order": ["hosts", "httpdns"]}`) in `ConfigAdditions.resolver_keys`.
"""

import json
from dataclasses import dataclass, fields
from pathlib import Path

# Config keys in the order they are written; the dataclass fields carry the same names.
KEY_ORDER = ("name", "format", "url", "bootstrap", "ca_file", "spki_sha256", "timeout_ms", "method", "account_id",
             "secret_file", "secret_env", "token_file", "token_env", "key_id", "alg", "domains", "client_subnet")


@dataclass(frozen=True)
class HttpdnsProvider:
    name: str
    format: str
    url: str
    bootstrap: tuple[str, ...] | list[str] | None = None
    ca_file: Path | str | None = None
    spki_sha256: tuple[str, ...] | list[str] | None = None
    timeout_ms: int | None = None
    method: str | None = None
    account_id: str | None = None
    secret_file: Path | str | None = None
    secret_env: str | None = None
    token_file: Path | str | None = None
    token_env: str | None = None
    key_id: str | None = None
    alg: str | None = None
    domains: tuple[str, ...] | list[str] | None = None
    client_subnet: str | None = None

    def toml(self) -> str:
        values = {field.name: getattr(self, field.name) for field in fields(self)}
        lines = ["[[resolver.httpdns]]"]
        for key in KEY_ORDER:
            value = values[key]
            if value is None:
                continue
            if isinstance(value, Path):
                value = str(value)
            if isinstance(value, tuple):
                value = list(value)
            # TOML basic strings, integers and arrays of strings share JSON's syntax.
            lines.append(f"{key} = {json.dumps(value)}")
        return "\n".join(lines) + "\n"


def httpdns_sections(*providers: HttpdnsProvider) -> str:
    """The providers' tables in the order given, which is the order ipdirect tries them."""
    return "\n" + "\n".join(provider.toml() for provider in providers)

"""Running ipdirect on HTTPDNS providers and reading what it did: requests through it, its access-log fields,
`ipdirect resolve` on its configuration.

Every request goes on a connection of its own and upstream pooling is off (`upstream_max_idle_per_host = 0`),
so each request resolves its host again instead of reusing a connection (access-log source `pool`).
"""

import os
import subprocess
from dataclasses import dataclass

from .ipdirect_proxy import ConfigAdditions, IpdirectProxy, ipdirect_binary
from .provider_setups import ProviderSetup
from .raw_http import RawConnection, RawResponse, get_request
from .resolver_config import httpdns_sections

# HTTPDNS only: a name no provider answers fails, so an answered request proves a provider answered it.
HTTPDNS_ONLY = ("hosts", "httpdns")
# A reused upstream connection would skip resolution.
NO_POOLING = {"upstream_max_idle_per_host": 0}
# Generous: a request through a proxy on loopback takes milliseconds.
REQUEST_TIMEOUT_SECONDS = 15
RESOLVE_COMMAND_TIMEOUT_SECONDS = 30


def start_resolving(start_ipdirect, *setups: ProviderSetup, order=HTTPDNS_ONLY, resolver_keys=None,
                    access_keys=None, extra_sections: str = "", admin: bool = False) -> IpdirectProxy:
    """An ipdirect of the test's own whose `[[resolver.httpdns]]` are `setups`, in that order; `admin` turns
    its admin listener on."""
    environment: dict[str, str] = {}
    for setup in setups:
        environment.update(setup.environment)
    additions = ConfigAdditions(
        proxy_keys=dict(NO_POOLING),
        resolver_keys={"order": list(order), **(resolver_keys or {})},
        access_keys=dict(access_keys or {}),
        sections=httpdns_sections(*(setup.provider for setup in setups)) + extra_sections,
        environment=environment,
        admin=admin)
    return start_ipdirect(additions)


def fetch(proxy: IpdirectProxy, url: str, authority: str) -> RawResponse:
    """One GET through the proxy on a fresh connection, closed after the response."""
    with RawConnection(proxy.address, timeout=REQUEST_TIMEOUT_SECONDS) as client:
        client.send(get_request(url, authority, "Connection: close\r\n"))
        return client.read_response()


def access_log_lines(proxy: IpdirectProxy, authority: str) -> list[str]:
    """The access-log lines (since the proxy's mark) of requests for `authority`."""
    return [line for line in proxy.access_log_since_mark().splitlines() if f" target={authority} " in line]


def log_field(line: str, key: str) -> str:
    """The value of `key=value` in an access-log or event line ('' if absent)."""
    for item in line.split():
        name, separator, value = item.partition("=")
        if separator and name == key:
            return value
    return ""


def event_lines(proxy: IpdirectProxy, event: str) -> list[str]:
    return [line for line in proxy.stderr_since_mark().splitlines() if f"event={event} " in line]


@dataclass(frozen=True)
class ResolvedLine:
    """One line of `ipdirect resolve`: ADDRESS<TAB>ttl=N|-<TAB>source=S."""
    address: str
    ttl: int | None
    source: str


@dataclass(frozen=True)
class ResolveOutput:
    exit_code: int
    lines: list[ResolvedLine]
    stderr: str

    def describe(self) -> str:
        return f"exit {self.exit_code}; lines {self.lines}; stderr:\n{self.stderr}"


def resolve_command(proxy: IpdirectProxy, name: str) -> ResolveOutput:
    """`ipdirect resolve NAME --config` on `proxy`'s configuration and environment; it starts no proxy and
    never connects to the addresses it prints. Always with --config: without one, ipdirect would ask the
    public DoH providers of its built-in configuration."""
    environment = {**os.environ, **proxy.additions.environment}
    result = subprocess.run([str(ipdirect_binary()), "resolve", name, "--config", str(proxy.config_path)],
                            capture_output=True, text=True, timeout=RESOLVE_COMMAND_TIMEOUT_SECONDS,
                            env=environment)
    lines = []
    for text in result.stdout.splitlines():
        fields = text.split("\t")
        if len(fields) != 3:
            raise AssertionError(f"not an `ipdirect resolve` line: {text!r}\n{result.stdout}{result.stderr}")
        address, ttl, source = fields
        ttl_value = ttl.removeprefix("ttl=")
        lines.append(ResolvedLine(address, None if ttl_value == "-" else int(ttl_value),
                                  source.removeprefix("source=")))
    return ResolveOutput(result.returncode, lines, result.stderr)

"""The proxy under test: the ipdirect binary, run in the foreground on a config written for the test network.

Binary: $IPDIRECT_BIN, else `<repo>/.build/debug/ipdirect`. Access log lines go to stdout, events to stderr.
The shared proxy runs on the config below as it is; a test that needs other keys starts an instance of its
own with `ConfigAdditions` (see the `start_ipdirect` fixture).
"""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from .network import Network
from .ports import LOOPBACK, free_port, ipv6_loopback_available
from .processes import ManagedProcess, ProcessFailedToStart
from .proxy_under_test import ProxyUnderTest

REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_BINARY = REPO_ROOT / ".build" / "debug" / "ipdirect"
START_ATTEMPTS = 3
# The field every admin request that changes state (anything but GET and HEAD) must carry: a web page cannot
# send it without a CORS preflight, which the admin API never grants.
ADMIN_MARKER = {"X-IPDirect-Admin": "1"}


def ipdirect_binary() -> Path:
    return Path(os.environ.get("IPDIRECT_BIN", str(DEFAULT_BINARY)))


@dataclass(frozen=True)
class ProxySettings:
    """The `[proxy]` values the tests run with; tests that probe a limit read it from here."""
    connect_timeout: int = 2
    header_timeout: int = 10
    client_idle_timeout: int = 60
    tunnel_idle_timeout: int = 300
    max_connections: int = 10000
    max_header_bytes: int = 32768


SETTINGS = ProxySettings()


@dataclass(frozen=True)
class ConfigAdditions:
    """What one test adds to the shared configuration. TOML lets a table be opened only once, so keys for
    the existing [proxy], [resolver], [access] and [tls] tables are given as values and written inside them
    (a proxy, resolver or access key replaces the default of the same name, e.g. `client_idle_timeout`,
    `order`, or `allow_private_upstreams = false`); whole new tables (`[upstream]`,
    `[[tls.pin]]`, `[[resolver.httpdns]]` from resolver_config.httpdns_sections) go in `sections`, written
    after everything else. `environment` is added to ipdirect's environment (for `secret_env` and the like).
    The admin listener is off unless `admin` is set: then it listens on a free loopback port
    (`IpdirectProxy.admin_port`), so instances never compete for its default port. `default_admin` leaves
    the [admin] section out instead, so the built-in default (127.0.0.1:8081) applies, as for a user running
    the default configuration; instances started so may compete for it. `admin_keys` go in [admin] next to
    its `listen`; `pac_keys` go in [pac]."""
    proxy_keys: dict[str, object] = field(default_factory=dict)
    tls_keys: dict[str, object] = field(default_factory=dict)
    resolver_keys: dict[str, object] = field(default_factory=dict)
    access_keys: dict[str, object] = field(default_factory=dict)
    sections: str = ""
    admin: bool = False
    default_admin: bool = False
    admin_keys: dict[str, object] = field(default_factory=dict)
    pac_keys: dict[str, object] = field(default_factory=dict)
    environment: dict[str, str] = field(default_factory=dict)


NO_ADDITIONS = ConfigAdditions()


def _toml(value) -> str:
    """TOML basic strings, integers, booleans and arrays of them share JSON's syntax."""
    return json.dumps(value)


def _keys(values: dict[str, object]) -> str:
    return "".join(f"{key} = {_toml(value)}\n" for key, value in values.items())


def ipdirect_config_text(listen: list[str], network: Network, ca_file: Path,
                         settings: ProxySettings = SETTINGS, additions: ConfigAdditions = NO_ADDITIONS,
                         admin_listen: list[str] | str | None = None) -> str:
    hosts = "\n".join(f"{_toml(name)} = {_toml(addresses)}" for name, addresses in network.static_hosts.items())
    resolver = {"order": ["hosts", "system"], "system_nameservers": [network.dns_server], **additions.resolver_keys}
    # The origins are on loopback, which is not a public address.
    access = {"connect_ports": network.connect_ports, "allow_private_upstreams": True, **additions.access_keys}
    admin = "" if additions.default_admin else f"[admin]\n{_keys({'listen': admin_listen or [], **additions.admin_keys})}"
    proxy = {"listen": listen, **{key: getattr(settings, key) for key in ProxySettings.__dataclass_fields__},
             "access_log": "-", **additions.proxy_keys}
    return f"""# Written by the end-to-end tests for one test run.
[proxy]
{_keys(proxy)}
[resolver]
{_keys(resolver)}
[hosts]
{hosts}

[access]
{_keys(access)}
{admin}
[pac]
{_keys(additions.pac_keys)}
[tls]
ca_file = {_toml(str(ca_file))}
{_keys(additions.tls_keys)}{additions.sections}"""


class IpdirectProxy(ProxyUnderTest):
    kind = "ipdirect"

    def __init__(self, work_dir: Path, network: Network, ca_file: Path, additions: ConfigAdditions = NO_ADDITIONS):
        super().__init__(work_dir)
        self.network = network
        self.ca_file = ca_file
        self.additions = additions
        self.ipv6_port: int | None = None
        self.admin_port: int | None = None
        self.config_path = work_dir / "ipdirect.toml"
        self._starts = 0

    def start(self) -> "IpdirectProxy":
        binary = ipdirect_binary()
        if not binary.exists():
            raise ProcessFailedToStart(f"no ipdirect binary at {binary} (build it or set IPDIRECT_BIN)")
        self.work_dir.mkdir(parents=True, exist_ok=True)
        last_error = None
        for _ in range(START_ATTEMPTS):
            self._starts += 1
            self.port = free_port()
            listen = [f"{LOOPBACK}:{self.port}"]
            self.ipv6_port = free_port("::1") if ipv6_loopback_available() else None
            if self.ipv6_port is not None:
                listen.append(f"[::1]:{self.ipv6_port}")
            self.admin_port = free_port() if self.additions.admin else None
            admin_listen = [f"{LOOPBACK}:{self.admin_port}"] if self.admin_port is not None else []
            self.config_path.write_text(ipdirect_config_text(listen, self.network, self.ca_file,
                                                              additions=self.additions, admin_listen=admin_listen))
            environment = {**os.environ, **self.additions.environment} if self.additions.environment else None
            self.process = ManagedProcess(f"ipdirect-{self._starts}", self.command(), self.work_dir,
                                          env=environment)
            self.process.start()
            try:
                self.process.wait_for_port(LOOPBACK, self.port)
                if self.ipv6_port is not None:
                    self.process.wait_for_port("::1", self.ipv6_port)
                if self.admin_port is not None:
                    self.process.wait_for_port(LOOPBACK, self.admin_port)
                return self
            except ProcessFailedToStart as error:
                self.process.stop()
                last_error = error
        raise ProcessFailedToStart(f"ipdirect did not start in {START_ATTEMPTS} attempts:\n{last_error}\n"
                                   f"--- config {self.config_path}:\n{self.config_path.read_text()}")

    def command(self) -> list[str]:
        """What starts this instance; a subclass may wrap it (a namespace, a bind mount)."""
        return [str(ipdirect_binary()), "run", "--config", str(self.config_path)]

    def admin_url(self, path: str) -> str:
        """`http://127.0.0.1:PORT/path` of this instance's admin listener (started with `admin=True`)."""
        assert self.admin_port is not None, "this ipdirect was started without ConfigAdditions(admin=True)"
        return f"http://{LOOPBACK}:{self.admin_port}{path}"

    def access_log_path(self) -> Path:
        return self.process.stdout_path

"""The names and ports every proxy under test is told about, and URLs built from them.

All names are served by static host entries in the proxy's own configuration (never /etc/hosts), except
`dns.test`, which only the dnsmasq fixture knows. Every address is on loopback.
"""

from dataclasses import dataclass, field

from .certificates import FAILURE_HOST_NAMES, VIRTUAL_HOST_NAMES, WILDCARD_TEST_NAMES
from .ports import LOOPBACK

# Loopback addresses with nothing listening on the test ports (all of 127.0.0.0/8 routes to lo on Linux).
UNUSED_LOOPBACK_ADDRESSES = ("127.0.0.2", "127.0.0.3")


@dataclass(frozen=True)
class Network:
    nginx_http_port: int
    nginx_https_port: int
    upload_port: int
    counting_port: int
    closed_port: int          # nothing listens here on any loopback address
    blackhole_port: int       # a listener whose accept queue is full: connects hang until they time out
    digest_port: int          # answers a tunnel with the size and sha256 of what it got, after a half-close
    dns_server: str           # "127.0.0.1:PORT" of dnsmasq
    static_hosts: dict[str, list[str]] = field(default_factory=dict)

    @property
    def connect_ports(self) -> list[int]:
        """Ports CONNECT may reach: the usual 443, the HTTPS origin and the digest origin; nothing else."""
        return [443, self.nginx_https_port, self.digest_port]

    def plain_url(self, path: str = "/", name: str = "origin.test") -> str:
        return f"http://{name}:{self.nginx_http_port}{path}"

    def plain_authority(self, name: str = "origin.test") -> str:
        return f"{name}:{self.nginx_http_port}"

    def tls_authority(self, name: str) -> str:
        return f"{name}:{self.nginx_https_port}"

    def tls_url(self, name: str, path: str = "/") -> str:
        """An https:// URL on the HTTPS origin, for absolute-form requests the proxy itself speaks TLS for."""
        return f"https://{self.tls_authority(name)}{path}"

    def counting_url(self, path: str = "/") -> str:
        return f"http://count.test:{self.counting_port}{path}"

    def upload_url(self, path: str = "/sink") -> str:
        """The hashing origin directly, without nginx in between."""
        return f"http://upload.test:{self.upload_port}{path}"


def static_hosts_table() -> dict[str, list[str]]:
    return {
        "origin.test": [LOOPBACK],
        # The HTTPS origin's virtual hosts, good and bad (see certificates.py); the plain origin answers
        # for every name too.
        **{name: [LOOPBACK] for name in VIRTUAL_HOST_NAMES + FAILURE_HOST_NAMES},
        # The bare name of a `*.example.test` https_upgrade rule, which the rule must not match.
        "example.test": [LOOPBACK],
        # Names a `*.example.test` certificate must match (one label) or not (two labels, a partial wildcard).
        **{name: [LOOPBACK] for name in WILDCARD_TEST_NAMES},
        "upload.test": [LOOPBACK],
        "count.test": [LOOPBACK],
        "down.test": [LOOPBACK],
        "blackhole.test": [LOOPBACK],
        # Both refuse: the error must name every address tried.
        "all-down.test": list(UNUSED_LOOPBACK_ADDRESSES),
        # First refuses, second is nginx: the request must still be served.
        "fallback.test": [UNUSED_LOOPBACK_ADDRESSES[0], LOOPBACK],
    }

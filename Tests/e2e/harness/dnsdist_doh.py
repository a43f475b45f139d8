"""dnsdist as an RFC 8484 DoH front end (HTTP/1.1 and HTTP/2, through its h2o listener) to the test unbound.

It has two DoH listeners: `url` over TLS (HTTP/2 by ALPN, or HTTP/1.1), and `plain_url` in cleartext, which
dnsdist serves as HTTP/1.1 (an `addDOHLocal` without a certificate). `frontend_stats` reads each listener's
counters (queries per HTTP version and per method) through dnsdist's console on a loopback port, so a test
can tell which HTTP version and method a client used.

Its only backend is that unbound's plain DNS port; it has no packet cache, so every query reaches unbound and
is counted there. The security poll (which would look up secpoll.powerdns.com) is off, no console or carbon
is configured, and the backend health check asks a `.test` name once an hour rather than the default
`a.root-servers.net.` every second, which would fill unbound's query log. dnsdist 1.7 has no
`healthCheckMode`, so the health check cannot be turned off altogether.
"""

import base64
import os
import subprocess
from pathlib import Path

from .certificates import CertificatePair
from .doh_certificates import DNSDIST_HOST_NAME
from .ports import LOOPBACK
from .processes import ManagedProcess, start_on_free_ports
from .doh_endpoint import DOH_PATH, DohEndpoint
from .unbound_doh import UnboundDoh

# The name dnsdist's backend health check asks unbound for (unbound answers NXDOMAIN, which counts as up).
HEALTH_CHECK_NAME = "health.dnsdist.test."
# One health check an hour: the first at start, then practically never during a test run.
HEALTH_CHECK_INTERVAL_SECONDS = 3600
# Bytes of the console's shared key (libsodium secretbox keys are 32 bytes).
CONSOLE_KEY_BYTES = 32
# How long one console command may take.
CONSOLE_TIMEOUT_SECONDS = 10.0
# The columns of `showDOHFrontends()` this harness reads, as dnsdist 1.7 names them.
FRONTEND_COLUMNS = ("HTTP", "HTTP/1", "HTTP/2", "GET", "POST", "Bad", "Errors", "Valid")


class DnsdistDoh(DohEndpoint):
    host_name = DNSDIST_HOST_NAME

    def __init__(self, directory: Path, certificate: CertificatePair, backend: UnboundDoh):
        self.directory = directory
        self.certificate = certificate
        self.backend = backend
        self.config_path = directory / "dnsdist.conf"
        self.port = self.dns_port = self.plain_port = self.console_port = 0
        self._console_key = base64.b64encode(os.urandom(CONSOLE_KEY_BYTES)).decode()
        self.process: ManagedProcess | None = None

    @classmethod
    def start(cls, directory: Path, certificate: CertificatePair, backend: UnboundDoh) -> "DnsdistDoh":
        return cls(directory, certificate, backend)._start()

    @property
    def plain_url(self) -> str:
        """The cleartext listener, which speaks HTTP/1.1 only."""
        return f"http://{DNSDIST_HOST_NAME}:{self.plain_port}{DOH_PATH}"

    @property
    def tls_listener(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    @property
    def plain_listener(self) -> str:
        return f"{LOOPBACK}:{self.plain_port}"

    def _start(self) -> "DnsdistDoh":
        self.directory.mkdir(parents=True, exist_ok=True)

        def command_for(ports: list[int]) -> list[str]:
            self.port, self.dns_port, self.plain_port, self.console_port = ports
            self.config_path.write_text(self._config_text())
            return ["dnsdist", "--supervised", "--disable-syslog", "-C", str(self.config_path)]

        # The DoH listeners and the console; the plain DNS port is for unbound's health checks only.
        self.process, _ = start_on_free_ports("dnsdist", 4, self.directory, command_for,
                                              listening=lambda ports: [ports[0], ports[2], ports[3]])
        return self

    def _config_text(self) -> str:
        # A plain listener of our own: without any, dnsdist would take 127.0.0.1:53.
        return f"""-- Written by the end-to-end tests.
setSecurityPollSuffix("")
setACL({{"127.0.0.0/8", "::1/128"}})
setLocal("{LOOPBACK}:{self.dns_port}")
controlSocket("{LOOPBACK}:{self.console_port}")
setConsoleACL({{"127.0.0.0/8"}})
setKey("{self._console_key}")
newServer({{address="{self.backend.dns_address}", name="unbound", checkName="{HEALTH_CHECK_NAME}",
           checkInterval={HEALTH_CHECK_INTERVAL_SECONDS}}})
addDOHLocal("{LOOPBACK}:{self.port}", "{self.certificate.chain}", "{self.certificate.key}", "{DOH_PATH}")
addDOHLocal("{LOOPBACK}:{self.plain_port}", nil, nil, "{DOH_PATH}")
"""

    def frontend_stats(self) -> dict[str, dict[str, int]]:
        """Counters of each DoH listener since start, keyed by `tls_listener` / `plain_listener`: queries
        received (`HTTP`), by HTTP version (`HTTP/1`, `HTTP/2`) and method (`GET`, `POST`), and outcomes."""
        argv = ["dnsdist", "-C", str(self.config_path), "-c", "-e", "showDOHFrontends()"]
        result = subprocess.run(argv, capture_output=True, text=True, timeout=CONSOLE_TIMEOUT_SECONDS)
        lines = [line.split() for line in result.stdout.splitlines() if line.strip()]
        if result.returncode != 0 or not lines or lines[0][:2] != ["#", "Address"]:
            raise RuntimeError(f"{' '.join(argv)} failed ({result.returncode}): {result.stdout}{result.stderr}")
        header = lines[0]
        stats = {}
        for fields in lines[1:]:
            # The header's leading names are one word each, so they line up with the row's fields.
            row = dict(zip(header, fields))
            stats[row["Address"]] = {column: int(row[column]) for column in FRONTEND_COLUMNS}
        return stats

    def is_running(self) -> bool:
        return self.process is not None and self.process.is_running()

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()

    def describe(self) -> str:
        return self.process.describe_output() if self.process is not None else ""

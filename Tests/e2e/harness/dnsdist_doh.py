"""dnsdist as an RFC 8484 DoH front end (HTTP/1.1 and HTTP/2, through its h2o listener) to the test unbound.

Its only backend is that unbound's plain DNS port; it has no packet cache, so every query reaches unbound and
is counted there. The security poll (which would look up secpoll.powerdns.com) is off, no console or carbon
is configured, and the backend health check asks a `.test` name once an hour rather than the default
`a.root-servers.net.` every second, which would fill unbound's query log. dnsdist 1.7 has no
`healthCheckMode`, so the health check cannot be turned off altogether.
"""

from pathlib import Path

from .certificates import CertificatePair
from .doh_certificates import DNSDIST_HOST_NAME
from .ports import LOOPBACK, free_ports
from .processes import ManagedProcess, ProcessFailedToStart
from .unbound_doh import DOH_PATH, UnboundDoh

START_ATTEMPTS = 3
# The name dnsdist's backend health check asks unbound for (unbound answers NXDOMAIN, which counts as up).
HEALTH_CHECK_NAME = "health.dnsdist.test."
# One health check an hour: the first at start, then practically never during a test run.
HEALTH_CHECK_INTERVAL_SECONDS = 3600


class DnsdistDoh:
    def __init__(self, directory: Path, certificate: CertificatePair, backend: UnboundDoh):
        self.directory = directory
        self.certificate = certificate
        self.backend = backend
        self.config_path = directory / "dnsdist.conf"
        self.port = self.dns_port = 0
        self.process: ManagedProcess | None = None

    @classmethod
    def start(cls, directory: Path, certificate: CertificatePair, backend: UnboundDoh) -> "DnsdistDoh":
        return cls(directory, certificate, backend)._start()

    @property
    def host_name(self) -> str:
        return DNSDIST_HOST_NAME

    @property
    def url(self) -> str:
        return f"https://{DNSDIST_HOST_NAME}:{self.port}{DOH_PATH}"

    @property
    def bootstrap(self) -> str:
        return LOOPBACK

    def _start(self) -> "DnsdistDoh":
        self.directory.mkdir(parents=True, exist_ok=True)
        last_error = None
        for attempt in range(START_ATTEMPTS):
            self.port, self.dns_port = free_ports(2)
            self.config_path.write_text(self._config_text())
            self.process = ManagedProcess(
                f"dnsdist-{attempt}",
                ["dnsdist", "--supervised", "--disable-syslog", "-C", str(self.config_path)], self.directory)
            self.process.start()
            try:
                self.process.wait_for_port(LOOPBACK, self.port)
                return self
            except ProcessFailedToStart as error:
                self.process.stop()
                last_error = error
        raise ProcessFailedToStart(f"dnsdist did not start: {last_error}")

    def _config_text(self) -> str:
        # A plain listener of our own: without any, dnsdist would take 127.0.0.1:53.
        return f"""-- Written by the end-to-end tests.
setSecurityPollSuffix("")
setACL({{"127.0.0.0/8", "::1/128"}})
setLocal("{LOOPBACK}:{self.dns_port}")
newServer({{address="{self.backend.dns_address}", name="unbound", checkName="{HEALTH_CHECK_NAME}",
           checkInterval={HEALTH_CHECK_INTERVAL_SECONDS}}})
addDOHLocal("{LOOPBACK}:{self.port}", "{self.certificate.chain}", "{self.certificate.key}", "{DOH_PATH}")
"""

    def is_running(self) -> bool:
        return self.process is not None and self.process.is_running()

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()

    def describe(self) -> str:
        return self.process.describe_output() if self.process is not None else ""

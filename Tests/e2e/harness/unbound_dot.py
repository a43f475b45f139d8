"""unbound as a real RFC 7858 DNS-over-TLS server on loopback (`tls-port`), answering only its `local-data`.

Like the DoH unbound (see unbound_doh) it never recurses: `local-zone: "." static` answers every other name
NXDOMAIN. Its certificate comes from the test CA and names doh.test, so a provider URL `tls://doh.test:PORT`
verifies and any other name does not.

`so-reuseport` lets a second instance bind the same port while the first still holds it: that is how a test
restarts the server under queries in flight (`restart_under_load`), with no moment where nothing listens.
"""

import os
import signal
import subprocess
import time
from pathlib import Path

from .certificates import CertificatePair
from .doh_certificates import UNBOUND_HOST_NAME
from .ports import LOOPBACK, free_port
from .processes import POLL_INTERVAL_SECONDS, STARTUP_TIMEOUT_SECONDS, ManagedProcess, ProcessFailedToStart
from .unbound_doh import DEAD_FORWARDER, Record

# unbound's own default: how long a connection may stay without a query before the server closes it.
DEFAULT_IDLE_TIMEOUT_MS = 30_000


class UnboundDot:
    """A running unbound speaking DNS over TLS on `port` of the loopback address; `url` is a `dot` provider's."""
    host_name = UNBOUND_HOST_NAME

    def __init__(self, directory: Path, certificate: CertificatePair, records: list[Record],
                 idle_timeout_ms: int = DEFAULT_IDLE_TIMEOUT_MS):
        self.directory = directory
        self.certificate = certificate
        self.records = list(records)
        self.idle_timeout_ms = idle_timeout_ms
        self.port = 0
        self.instances: list[ManagedProcess] = []

    @classmethod
    def start(cls, directory: Path, certificate: CertificatePair, records: list[Record],
              idle_timeout_ms: int = DEFAULT_IDLE_TIMEOUT_MS) -> "UnboundDot":
        server = cls(directory, certificate, records, idle_timeout_ms)
        server.port = free_port()
        server._start_instance()
        return server

    @property
    def url(self) -> str:
        return f"tls://{self.host_name}:{self.port}"

    @property
    def current(self) -> ManagedProcess:
        return self.instances[-1]

    def _start_instance(self) -> ManagedProcess:
        number = len(self.instances)
        directory = self.directory / f"instance-{number}"
        directory.mkdir(parents=True, exist_ok=True)
        config_path = directory / "unbound.conf"
        config_path.write_text(self._config_text(directory))
        process = ManagedProcess(f"unbound-dot-{number}", ["unbound", "-d", "-c", str(config_path)], directory)
        self.instances.append(process)
        process.start()
        process.wait_for_port(LOOPBACK, self.port)
        # With another instance on the port, the probe above may have reached that one: the log says when
        # this one serves.
        log = directory / "unbound.log"
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while "start of service" not in (log.read_text(errors="replace") if log.exists() else ""):
            if time.monotonic() > deadline or not process.is_running():
                raise ProcessFailedToStart(f"unbound did not start serving on {self.port}\n{self.describe()}")
            time.sleep(POLL_INTERVAL_SECONDS)
        return process

    def _config_text(self, directory: Path) -> str:
        local_data = "\n".join(f'  local-data: "{record.local_data}"' for record in self.records)
        return f"""# Written by the end-to-end tests.
server:
  username: ""
  chroot: ""
  directory: "{directory}"
  pidfile: "{directory / 'unbound.pid'}"
  use-syslog: no
  logfile: "{directory / 'unbound.log'}"
  log-queries: yes
  verbosity: 1
  interface: {LOOPBACK}@{self.port}
  tls-port: {self.port}
  tls-service-key: "{self.certificate.key}"
  tls-service-pem: "{self.certificate.chain}"
  so-reuseport: yes
  tcp-idle-timeout: {self.idle_timeout_ms}
  incoming-num-tcp: 200
  access-control: 127.0.0.0/8 allow
  do-ip6: no
  do-udp: no
  module-config: "iterator"
  auto-trust-anchor-file: ""
  local-zone: "." static
{local_data}
forward-zone:
  name: "."
  forward-addr: {DEAD_FORWARDER}
"""

    def freeze(self) -> None:
        """Stops the running instance (SIGSTOP): it keeps its connections but reads and answers nothing."""
        os.kill(self.current.pid, signal.SIGSTOP)

    def replace_frozen(self) -> None:
        """Starts a new instance on the same port, then kills the frozen one: the kernel resets its connections,
        with whatever was sent to it unread, and only the new instance is left to connect to."""
        frozen = self.current
        self._start_instance()
        os.kill(frozen.pid, signal.SIGKILL)
        frozen.popen.wait(timeout=10)

    def established_connections(self) -> int:
        """TCP connections to the server's port in state ESTABLISHED, counted on the server side."""
        output = subprocess.run(["ss", "-Htn", "state", "established", f"( sport = :{self.port} )"],
                                capture_output=True, text=True, check=True).stdout
        return len([line for line in output.splitlines() if line.strip()])

    def is_running(self) -> bool:
        return bool(self.instances) and self.current.is_running()

    def stop(self) -> None:
        for process in self.instances:
            if process.is_running():
                os.kill(process.pid, signal.SIGCONT)
            process.stop()

    def describe(self) -> str:
        parts = []
        for process in self.instances:
            log = Path(process.stdout_path.parent / "unbound.log")
            text = log.read_text(errors="replace")[-3000:] if log.exists() else ""
            parts.append(f"{process.describe_output()}\n--- unbound log (tail):\n{text}")
        return "\n".join(parts)

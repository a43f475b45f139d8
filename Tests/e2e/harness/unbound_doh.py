"""unbound as a real RFC 8484 DoH server on loopback (HTTP/2 only: unbound's DoH speaks no HTTP/1.1).

It answers only its own `local-data` and never recurses: `local-zone: "." static` answers every other name
NXDOMAIN from memory, and the only forwarder for "." is a dead loopback port that unbound will not even use
(`do-not-query-localhost` stays at its default, yes). Root hints are never primed because nothing is ever
iterated. Records can be changed while it runs through `unbound-control` on a loopback port, and every query
it receives is logged (`log-queries`), which is how `query_count` counts them.

unbound returns a `local-data` CNAME without following it, so names under `chain.test` live in an
authoritative zone instead (`auth-zone`, answered to clients directly), where unbound puts the whole CNAME
chain in the answer as a public resolver would. Changing one of those rewrites the zone file and reloads it.
"""

import subprocess
from dataclasses import dataclass
from pathlib import Path

from .certificates import CertificatePair
from .doh_certificates import UNBOUND_HOST_NAME
from .doh_endpoint import DOH_PATH, DohEndpoint
from .ports import LOOPBACK
from .processes import ManagedProcess, start_on_free_ports

# TTL of a record when the test does not say.
DEFAULT_TTL = 60
# How long one unbound-control command may take.
CONTROL_TIMEOUT_SECONDS = 10.0
# A loopback port nothing listens on: the forwarder for ".", a second guard against recursion.
DEAD_FORWARDER = "127.0.0.1@1"
# Names under this zone are served from an auth-zone, so CNAME chains among them are followed.
CHAIN_ZONE = "chain.test"
# SOA timers of the chain zone (never used: nothing transfers it); the minimum is its negative TTL.
CHAIN_ZONE_SOA = "ns.chain.test. admin.chain.test. {serial} 3600 600 86400 60"


@dataclass(frozen=True)
class Record:
    """One resource record of unbound's `local-data`; names are under `.test`."""
    name: str
    type: str          # "A", "AAAA" or "CNAME"
    value: str         # an address, or for a CNAME the target name
    ttl: int = DEFAULT_TTL

    @property
    def local_data(self) -> str:
        value = f"{self.value.rstrip('.')}." if self.type == "CNAME" else self.value
        return f"{_fqdn(self.name)} {self.ttl} IN {self.type} {value}"


def _fqdn(name: str) -> str:
    return f"{name.lower().rstrip('.')}."


def _normalised(name: str) -> str:
    return name.lower().rstrip(".")


class UnboundDoh(DohEndpoint):
    """A running unbound; `url` and `bootstrap` are what an ipdirect `doh` provider needs."""
    host_name = UNBOUND_HOST_NAME

    def __init__(self, directory: Path, certificate: CertificatePair, records: list[Record]):
        self.directory = directory
        self.certificate = certificate
        self.initial_records = list(records)
        self.config_path = directory / "unbound.conf"
        self.log_path = directory / "unbound.log"
        self.zone_path = directory / "chain.zone"
        self._zone_serial = 0
        self.port = self.dns_port = self.control_port = 0
        self.process: ManagedProcess | None = None
        self._records: dict[str, list[Record]] = {}
        self._touched: set[str] = set()
        self._count_from = 0

    @classmethod
    def start(cls, directory: Path, certificate: CertificatePair, records: list[Record]) -> "UnboundDoh":
        return cls(directory, certificate, records)._start()

    @property
    def dns_address(self) -> str:
        """The plain DNS listener (UDP and TCP), dnsdist's backend."""
        return f"{LOOPBACK}:{self.dns_port}"

    def _start(self) -> "UnboundDoh":
        self.directory.mkdir(parents=True, exist_ok=True)

        def command_for(ports: list[int]) -> list[str]:
            self.port, self.dns_port, self.control_port = ports
            self._records = {}
            for record in self.initial_records:
                self._records.setdefault(_normalised(record.name), []).append(record)
            self._write_zone()
            self.config_path.write_text(self._config_text())
            return ["unbound", "-d", "-c", str(self.config_path)]

        self.process, _ = start_on_free_ports("unbound", 3, self.directory, command_for,
                                              listening=lambda ports: [ports[0], ports[2]],
                                              failure_detail=self.describe)
        self.reset_counts()
        return self

    def _config_text(self) -> str:
        local_data = "\n".join(f'  local-data: "{record.local_data}"' for record in self.initial_records
                               if not _in_chain_zone(record.name))
        return f"""# Written by the end-to-end tests.
server:
  username: ""
  chroot: ""
  directory: "{self.directory}"
  pidfile: "{self.directory / 'unbound.pid'}"
  use-syslog: no
  logfile: "{self.log_path}"
  log-queries: yes
  verbosity: 1
  interface: {LOOPBACK}@{self.port}
  interface: {LOOPBACK}@{self.dns_port}
  port: {self.dns_port}
  https-port: {self.port}
  http-endpoint: "{DOH_PATH}"
  tls-service-key: "{self.certificate.key}"
  tls-service-pem: "{self.certificate.chain}"
  access-control: 127.0.0.0/8 allow
  do-ip6: no
  module-config: "iterator"
  auto-trust-anchor-file: ""
  local-zone: "." static
  local-zone: "{CHAIN_ZONE}." transparent
{local_data}
auth-zone:
  name: "{CHAIN_ZONE}."
  zonefile: "{self.zone_path}"
  for-downstream: yes
  for-upstream: no
  fallback-enabled: no
remote-control:
  control-enable: yes
  control-interface: {LOOPBACK}
  control-port: {self.control_port}
  control-use-cert: no
forward-zone:
  name: "."
  forward-addr: {DEAD_FORWARDER}
"""

    # Records -------------------------------------------------------------------------------------------------
    def set_record(self, name: str, rtype: str, value: str | list[str], ttl: int = DEFAULT_TTL) -> None:
        """Replaces the `rtype` records of `name` (its other types stay). unbound-control can only drop a
        whole name, so the name is answered NXDOMAIN for the few milliseconds between removal and re-adding."""
        key = _normalised(name)
        values = [value] if isinstance(value, str) else list(value)
        kept = [record for record in self._records.get(key, []) if record.type != rtype]
        self._records[key] = kept + [Record(key, rtype, item, ttl) for item in values]
        self._touched.add(key)
        self._load_name(key)

    def remove(self, name: str) -> None:
        """Drops every record of `name`; it is then NXDOMAIN like any unknown name."""
        key = _normalised(name)
        self._records.pop(key, None)
        self._touched.add(key)
        self._load_name(key)

    def reset(self) -> None:
        """Records back to those given at start, and query counts from zero."""
        touched, self._touched = self._touched, set()
        for key in touched:
            self._records.pop(key, None)
        for record in self.initial_records:
            if _normalised(record.name) in touched:
                self._records.setdefault(_normalised(record.name), []).append(record)
        for key in touched:
            self._load_name(key)
        self.reset_counts()

    def _load_name(self, key: str) -> None:
        if _in_chain_zone(key):
            self._write_zone()
            self._control("auth_zone_reload", f"{CHAIN_ZONE}.")
            return
        self._control("local_data_remove", _fqdn(key))
        for record in self._records.get(key, []):
            self._control("local_data", record.local_data)

    def _write_zone(self) -> None:
        self._zone_serial += 1
        lines = [f"{CHAIN_ZONE}. 3600 IN SOA {CHAIN_ZONE_SOA.format(serial=self._zone_serial)}",
                 f"{CHAIN_ZONE}. 3600 IN NS ns.{CHAIN_ZONE}."]
        lines += [record.local_data for records in self._records.values() for record in records
                  if _in_chain_zone(record.name)]
        self.zone_path.write_text("\n".join(lines) + "\n")

    def _control(self, *command: str) -> None:
        argv = ["unbound-control", "-c", str(self.config_path), *command]
        result = subprocess.run(argv, capture_output=True, text=True, timeout=CONTROL_TIMEOUT_SECONDS)
        if result.returncode != 0 or result.stdout.strip() != "ok":
            raise RuntimeError(f"{' '.join(argv)} failed ({result.returncode}): {result.stdout}{result.stderr}")

    # Counting ------------------------------------------------------------------------------------------------
    def query_count(self, name: str, rtype: str | None = None) -> int:
        """Queries for `name` (of type `rtype`, or any) received since start or the last reset, from any
        client: unbound logs each one as `info: CLIENT NAME. TYPE CLASS` before answering it."""
        key = _normalised(name)
        return sum(1 for asked, asked_type in self._logged_queries()
                   if asked == key and (rtype is None or asked_type == rtype))

    def reset_counts(self) -> None:
        self._count_from = self.log_path.stat().st_size if self.log_path.exists() else 0

    def _logged_queries(self) -> list[tuple[str, str]]:
        with open(self.log_path, "rb") as log:
            log.seek(self._count_from)
            text = log.read().decode(errors="replace")
        queries = []
        for line in text.splitlines():
            _, marker, message = line.partition("] info: ")
            fields = message.split()
            if marker and len(fields) == 4 and fields[3] == "IN" and _is_loopback_client(fields[0]):
                queries.append((_normalised(fields[1]), fields[2]))
        return queries

    # Lifecycle -----------------------------------------------------------------------------------------------
    def is_running(self) -> bool:
        return self.process is not None and self.process.is_running()

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()

    def describe(self) -> str:
        log = self.log_path.read_text(errors="replace")[-4000:] if self.log_path.exists() else ""
        output = self.process.describe_output() if self.process is not None else ""
        return f"{output}\n--- unbound log (tail):\n{log}"


def _in_chain_zone(name: str) -> bool:
    key = _normalised(name)
    return key == CHAIN_ZONE or key.endswith(f".{CHAIN_ZONE}")


def _is_loopback_client(address: str) -> bool:
    return address.startswith("127.") or address == "::1"

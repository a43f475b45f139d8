"""ipdirect's DNS listener (`[dns]`) for the tests: a free loopback port for it, the `[dns]` table that turns it
on there, and `dig` against it with what its answer says (status, flags, records, the OPT line)."""

import re
import subprocess
import time
from dataclasses import dataclass

from .ports import LOOPBACK, free_port
from .resolution_checks import start_resolving

DIG_TIMEOUT_SECONDS = 3
# How long a test waits for a freshly started ipdirect's DNS listener to answer.
LISTENER_WAIT_SECONDS = 10


def dns_section(port: int, **keys) -> str:
    """The `[dns]` table: listening on LOOPBACK:`port`, every query logged at info, plus `keys`."""
    lines = [f'listen = ["{LOOPBACK}:{port}"]', 'query_log_level = "info"']
    for key, value in keys.items():
        lines.append(f"{key} = {str(value).lower() if isinstance(value, bool) else repr(value).replace(chr(39), chr(34))}")
    return "\n[dns]\n" + "\n".join(lines) + "\n"


def listener_port() -> int:
    return free_port()


def start_listening_ipdirect(provider_setup, start_ipdirect, provider: str, admin: bool = False, **dns_keys):
    """An ipdirect resolving through the HTTPDNS `provider` and answering DNS on a free port with the `[dns]`
    `dns_keys` (and its admin listener with `admin`); returns (port, the provider's setup, the ipdirect)."""
    setup = provider_setup(provider)
    port = listener_port()
    own = start_resolving(start_ipdirect, setup, extra_sections=dns_section(port, **dns_keys), admin=admin)
    wait_for_listener(port)
    return port, setup, own


@dataclass
class DigAnswer:
    text: str

    @property
    def status(self) -> str:
        found = re.search(r"status: (\w+)", self.text)
        return found.group(1) if found else ""

    @property
    def flags(self) -> set[str]:
        found = re.search(r";; flags: ([a-z ]+);", self.text)
        return set(found.group(1).split()) if found else set()

    @property
    def records(self) -> list[tuple[str, int, str, str]]:
        """The answer section: (owner, TTL, type, data), in the order sent."""
        section = re.search(r";; ANSWER SECTION:\n(.*?)(?:\n\n|\Z)", self.text, re.S)
        if not section:
            return []
        rows = []
        for line in section.group(1).splitlines():
            owner, ttl, _class, rtype, data = line.split(None, 4)
            rows.append((owner, int(ttl), rtype, data))
        return rows

    @property
    def addresses(self) -> list[str]:
        return [data for _, _, rtype, data in self.records if rtype in ("A", "AAAA")]

    @property
    def authority_types(self) -> list[str]:
        section = re.search(r";; AUTHORITY SECTION:\n(.*?)(?:\n\n|\Z)", self.text, re.S)
        return [line.split()[3] for line in section.group(1).splitlines()] if section else []

    @property
    def has_opt(self) -> bool:
        return "OPT PSEUDOSECTION" in self.text

    @property
    def edns_flags(self) -> set[str]:
        found = re.search(r"; EDNS: version: \d+, flags:([a-z ]*);", self.text)
        return set(found.group(1).split()) if found else set()


def dig(port: int, name: str, rtype: str = "A", *options: str, source: str | None = None) -> DigAnswer:
    """`dig @LOOPBACK -p port name rtype options`, one try, no retry over TCP unless asked."""
    command = ["dig", f"@{LOOPBACK}", "-p", str(port), name, rtype, "+tries=1", f"+time={DIG_TIMEOUT_SECONDS}",
               "+nocookie", *options]
    if source:
        command += ["-b", source]
    done = subprocess.run(command, capture_output=True, text=True, timeout=4 * DIG_TIMEOUT_SECONDS)
    return DigAnswer(done.stdout + done.stderr)


def wait_for_listener(port: int) -> None:
    deadline = time.monotonic() + LISTENER_WAIT_SECONDS
    while dig(port, "localhost").status != "NOERROR":
        if time.monotonic() >= deadline:
            raise AssertionError(f"the DNS listener on port {port} never answered")
        time.sleep(0.1)

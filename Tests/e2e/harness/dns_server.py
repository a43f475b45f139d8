"""dnsmasq on a loopback port as the "system" DNS server for the proxy's resolver path.

It reads no /etc/resolv.conf and no /etc/hosts and has no upstream servers, so it answers only the names given
here and nothing ever leaves the machine. `query_a` is a minimal RFC 1035 client the harness uses to check it.
"""

import random
import socket
from dataclasses import dataclass
from pathlib import Path

from .dns_message import decode_response, encode_query
from .ports import LOOPBACK
from .processes import ManagedProcess, start_on_free_ports

# A name only dnsmasq knows (not in the proxy's static hosts), and the address it answers with.
SYSTEM_RESOLVED_NAME = "dns.test"
SYSTEM_RESOLVED_ADDRESS = LOOPBACK
QUERY_TIMEOUT_SECONDS = 2.0
# Large enough for any UDP reply dnsmasq sends without EDNS (RFC 1035 §4.2.1 allows 512).
MAXIMUM_UDP_MESSAGE_BYTES = 4096


@dataclass
class DnsServer:
    host: str
    port: int
    process: ManagedProcess

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def stop(self) -> None:
        self.process.stop()


def start_dns_server(directory: Path) -> DnsServer:
    return start_dnsmasq("dnsmasq", directory, [f"--address=/{SYSTEM_RESOLVED_NAME}/{SYSTEM_RESOLVED_ADDRESS}"])


def start_dnsmasq(name: str, directory: Path, answers: list[str]) -> DnsServer:
    """A dnsmasq on a free loopback port that reads no resolv.conf or hosts file and has no upstream, so it
    answers only what `answers` (dnsmasq options such as `--address=/NAME/IP`) say."""
    directory.mkdir(parents=True, exist_ok=True)
    process, (port,) = start_on_free_ports(name, 1, directory, lambda ports: [
        "dnsmasq", "--keep-in-foreground", "--log-facility=-", "--log-queries",
        "--conf-file=/dev/null", "--no-resolv", "--no-hosts", "--no-poll",
        f"--listen-address={LOOPBACK}", "--bind-interfaces", f"--port={ports[0]}",
        f"--pid-file={directory / (name + '.pid')}", *answers,
    ])  # dnsmasq serves TCP too, on the same port, which is what readiness probes
    return DnsServer(LOOPBACK, port, process)


@dataclass(frozen=True)
class DnsAnswer:
    rcode: int
    addresses: list[str]


def query_a(server: tuple[str, int], name: str) -> DnsAnswer:
    """One UDP query for the A records of `name`."""
    query_id = random.randrange(1 << 16)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
        client.settimeout(QUERY_TIMEOUT_SECONDS)
        client.sendto(encode_query(name, "A", query_id), server)
        reply, _ = client.recvfrom(MAXIMUM_UDP_MESSAGE_BYTES)
    response = decode_response(reply)
    assert response.id == query_id, "reply to another query"
    return DnsAnswer(rcode=response.rcode, addresses=response.addresses("A"))

"""dnsmasq on a loopback port as the "system" DNS server for the proxy's resolver path.

It reads no /etc/resolv.conf and no /etc/hosts and has no upstream servers, so it answers only the names given
here and nothing ever leaves the machine. `query_a` is a minimal RFC 1035 client the harness uses to check it.
"""

import random
import socket
from dataclasses import dataclass
from pathlib import Path

from .dns_message import decode_response, encode_query
from .ports import LOOPBACK, free_port
from .processes import ManagedProcess, ProcessFailedToStart

# A name only dnsmasq knows (not in the proxy's static hosts), and the address it answers with.
SYSTEM_RESOLVED_NAME = "dns.test"
SYSTEM_RESOLVED_ADDRESS = LOOPBACK
START_ATTEMPTS = 3
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
    directory.mkdir(parents=True, exist_ok=True)
    last_error = None
    for attempt in range(START_ATTEMPTS):
        port = free_port()
        process = ManagedProcess(f"dnsmasq-{attempt}", [
            "dnsmasq", "--keep-in-foreground", "--log-facility=-", "--log-queries",
            "--conf-file=/dev/null", "--no-resolv", "--no-hosts", "--no-poll",
            f"--listen-address={LOOPBACK}", "--bind-interfaces", f"--port={port}",
            f"--pid-file={directory / 'dnsmasq.pid'}",
            f"--address=/{SYSTEM_RESOLVED_NAME}/{SYSTEM_RESOLVED_ADDRESS}",
        ], directory)
        process.start()
        try:
            process.wait_for_port(LOOPBACK, port)  # dnsmasq serves TCP too, on the same port
            return DnsServer(LOOPBACK, port, process)
        except ProcessFailedToStart as error:
            process.stop()
            last_error = error
    raise ProcessFailedToStart(f"dnsmasq did not start: {last_error}")


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

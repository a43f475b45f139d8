"""dnsmasq on a loopback port as the "system" DNS server for the proxy's resolver path.

It reads no /etc/resolv.conf and no /etc/hosts and has no upstream servers, so it answers only the names given
here and nothing ever leaves the machine. `query_a` is a minimal RFC 1035 client the harness uses to check it.
"""

import random
import socket
import struct
from dataclasses import dataclass
from pathlib import Path

from .ports import LOOPBACK, free_port
from .processes import ManagedProcess, ProcessFailedToStart

# A name only dnsmasq knows (not in the proxy's static hosts), and the address it answers with.
SYSTEM_RESOLVED_NAME = "dns.test"
SYSTEM_RESOLVED_ADDRESS = LOOPBACK
START_ATTEMPTS = 3
QUERY_TIMEOUT_SECONDS = 2.0
# RFC 1035 §3.2.2/§3.2.4: TYPE A, CLASS IN.
TYPE_A = 1
CLASS_IN = 1


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
    flags_recursion_desired = 0x0100
    question = b"".join(bytes([len(label)]) + label.encode() for label in name.split(".")) + b"\0"
    packet = struct.pack("!HHHHHH", query_id, flags_recursion_desired, 1, 0, 0, 0) + question \
        + struct.pack("!HH", TYPE_A, CLASS_IN)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
        client.settimeout(QUERY_TIMEOUT_SECONDS)
        client.sendto(packet, server)
        reply, _ = client.recvfrom(4096)
    answer_id, flags, _, answer_count, _, _ = struct.unpack("!HHHHHH", reply[:12])
    assert answer_id == query_id, "reply to another query"
    offset = 12 + len(question) + 4
    addresses = []
    for _ in range(answer_count):
        offset = _skip_name(reply, offset)
        record_type, _, _, length = struct.unpack("!HHIH", reply[offset:offset + 10])
        offset += 10
        if record_type == TYPE_A:
            addresses.append(socket.inet_ntoa(reply[offset:offset + length]))
        offset += length
    return DnsAnswer(rcode=flags & 0xF, addresses=addresses)


def _skip_name(packet: bytes, offset: int) -> int:
    while True:
        length = packet[offset]
        if length & 0xC0 == 0xC0:  # compression pointer, RFC 1035 §4.1.4
            return offset + 2
        if length == 0:
            return offset + 1
        offset += 1 + length

#!/usr/bin/env python3
"""A DNS server for the scheduling scenario that answers the A records of a hosts-format file in the order the
file lists them, for squid, which cannot take the three addresses from its `hosts_file` (each line for a name
replaces the previous one, so only the last address would be left).

    ordered_dns.py --address 127.0.0.1 --hosts FILE

dnsmasq would serve the same records, but it does not keep their order from one answer to the next, and the
scenario's point is that the dead address comes first. Plain UDP on port 53 (squid's dns_nameservers takes no
port), RFC 1035 wire format: A queries for a listed name get its addresses, other types of a listed name an
empty answer, any other name NXDOMAIN. Nothing is forwarded anywhere.
"""

import argparse
import socket
import struct

DNS_PORT = 53
# Longer than any run: squid caches the answer (its ipcache) and never asks again during the scenario.
TTL_SECONDS = 300
TYPE_A = 1
CLASS_IN = 1
HEADER = struct.Struct("!HHHHHH")
# Flags of an answer: QR, opcode 0, AA, RD copied from the query, RA.
ANSWER_FLAGS = 0x8400 | 0x0080
RECURSION_DESIRED = 0x0100
NXDOMAIN = 3
MAXIMUM_MESSAGE = 512


def read_hosts(path):
    """name (lower case) -> [IPv4 address, ...] in file order."""
    names = {}
    with open(path) as hosts:
        for line in hosts:
            fields = line.split("#", 1)[0].split()
            if len(fields) >= 2 and "." in fields[0] and ":" not in fields[0]:
                for name in fields[1:]:
                    names.setdefault(name.lower().rstrip("."), []).append(fields[0])
    return names


def question(message):
    """(name, type, end offset of the question) of a query with one question, or None."""
    offset, labels = HEADER.size, []
    while offset < len(message):
        length = message[offset]
        offset += 1
        if length == 0:
            if offset + 4 > len(message):
                return None
            query_type, _ = struct.unpack_from("!HH", message, offset)
            return ".".join(labels).lower(), query_type, offset + 4
        if length & 0xC0:
            return None  # no compression in a question we accept
        labels.append(message[offset:offset + length].decode("ascii", "replace"))
        offset += length
    return None


def answer(message, names):
    if len(message) < HEADER.size:
        return None
    identifier, flags, questions, _, _, _ = HEADER.unpack_from(message)
    parsed = question(message) if questions == 1 else None
    if parsed is None:
        return None
    name, query_type, end = parsed
    addresses = names.get(name)
    records = b""
    if addresses and query_type == TYPE_A:
        for address in addresses:
            # The name as a pointer to the question (offset 12), then type, class, TTL, length, address.
            records += struct.pack("!HHHIH", 0xC000 | HEADER.size, TYPE_A, CLASS_IN, TTL_SECONDS, 4)
            records += socket.inet_aton(address)
    count = len(addresses) if addresses and query_type == TYPE_A else 0
    code = 0 if addresses else NXDOMAIN
    head = HEADER.pack(identifier, ANSWER_FLAGS | (flags & RECURSION_DESIRED) | code, 1, count, 0, 0)
    return head + message[HEADER.size:end] + records


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", required=True)
    parser.add_argument("--hosts", required=True)
    arguments = parser.parse_args()
    names = read_hosts(arguments.hosts)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as server:
        server.bind((arguments.address, DNS_PORT))
        while True:
            message, client = server.recvfrom(MAXIMUM_MESSAGE)
            reply = answer(message, names)
            if reply:
                server.sendto(reply, client)


if __name__ == "__main__":
    main()

"""RFC 1035 wire-format DNS messages, just enough to ask for A/AAAA and read what came back.

The harness uses it to check its DNS servers (dnsmasq over UDP, unbound and dnsdist over RFC 8484 DoH)
without the proxy under test in between, so it stays small and strict rather than general. The HTTPDNS stub
also reads ipdirect's DoH queries with it (question and EDNS options, RFC 6891) and answers them.
"""

import base64
import socket
import struct
from dataclasses import dataclass

# RFC 1035 §3.2.2 / RFC 3596 §2.1: the record TYPEs the tests ask for or follow.
RECORD_TYPES = {"A": 1, "NS": 2, "CNAME": 5, "SOA": 6, "AAAA": 28}
# RFC 6891 §6.1.1: the OPT pseudo-record that carries EDNS options.
OPT_TYPE = 41
# RFC 7871 §6: the EDNS Client Subnet option code, and its FAMILY values.
ECS_OPTION_CODE = 8
ECS_FAMILIES = {1: socket.AF_INET, 2: socket.AF_INET6}
# RFC 1035 §4.1.1: QR (a response) and RA (recursion available).
FLAG_RESPONSE = 0x8000
FLAG_RECURSION_AVAILABLE = 0x0080
TYPE_NAMES = {number: name for name, number in RECORD_TYPES.items()}
# RFC 1035 §3.2.4: CLASS IN.
CLASS_IN = 1
# RFC 1035 §4.1.1: RD, asking the server to resolve on our behalf.
FLAG_RECURSION_DESIRED = 0x0100
# RFC 1035 §4.1.1 response codes the tests look at.
RCODE_NO_ERROR = 0
RCODE_NAME_ERROR = 3
HEADER = struct.Struct("!HHHHHH")
# A compression pointer has both top bits of its length byte set (RFC 1035 §4.1.4).
POINTER_MARK = 0xC0
# More pointers than this in one name can only be a loop.
MAXIMUM_POINTER_HOPS = 32


@dataclass(frozen=True)
class ResourceRecord:
    name: str        # owner, lower case, without the trailing dot
    type: str        # "A", "AAAA", "CNAME", ... or the number as text for other types
    ttl: int
    data: str        # address text for A/AAAA, target name for CNAME, hex otherwise


@dataclass(frozen=True)
class DnsResponse:
    id: int
    rcode: int
    question: tuple[str, str]
    answers: list[ResourceRecord]

    def addresses(self, record_type: str = "A") -> list[str]:
        return [record.data for record in self.answers if record.type == record_type]


def encode_query(name: str, record_type: str = "A", query_id: int = 0) -> bytes:
    """One question for `name`; ID 0 as RFC 8484 §4.1 asks of DoH clients, so answers can be cached."""
    labels = [label for label in name.rstrip(".").split(".") if label]
    question = b"".join(bytes([len(label)]) + label.encode("ascii") for label in labels) + b"\0"
    return HEADER.pack(query_id, FLAG_RECURSION_DESIRED, 1, 0, 0, 0) + question \
        + struct.pack("!HH", RECORD_TYPES[record_type], CLASS_IN)


def doh_get_parameter(query: bytes) -> str:
    """The `dns=` value of an RFC 8484 §4.1 GET: base64url without padding."""
    return base64.urlsafe_b64encode(query).rstrip(b"=").decode("ascii")


def decode_response(message: bytes) -> DnsResponse:
    query_id, flags, question_count, answer_count, _, _ = HEADER.unpack_from(message, 0)
    if question_count != 1:
        raise ValueError(f"{question_count} questions in a response to one")
    offset = HEADER.size
    question_name, offset = _read_name(message, offset)
    question_type, _ = struct.unpack_from("!HH", message, offset)
    offset += 4
    answers = []
    for _ in range(answer_count):
        owner, offset = _read_name(message, offset)
        record_type, _, ttl, length = struct.unpack_from("!HHIH", message, offset)
        offset += 10
        data = message[offset:offset + length]
        if len(data) != length:
            raise ValueError("record data runs past the end of the message")
        record_data = _record_data(message, offset, record_type, data)
        answers.append(ResourceRecord(owner, _type_name(record_type), ttl, record_data))
        offset += length
    return DnsResponse(query_id, flags & 0xF, (question_name, _type_name(question_type)), answers)


def _type_name(number: int) -> str:
    return TYPE_NAMES.get(number, str(number))


def _record_data(message: bytes, offset: int, record_type: int, data: bytes) -> str:
    if record_type == RECORD_TYPES["A"]:
        return socket.inet_ntop(socket.AF_INET, data)
    if record_type == RECORD_TYPES["AAAA"]:
        return socket.inet_ntop(socket.AF_INET6, data)
    if record_type == RECORD_TYPES["CNAME"]:
        return _read_name(message, offset)[0]
    return data.hex()


def _read_name(message: bytes, offset: int) -> tuple[str, int]:
    """The name at `offset` and the offset just past it where it is written (not where a pointer led)."""
    labels = []
    end = None
    for _ in range(MAXIMUM_POINTER_HOPS):
        length = message[offset]
        if length & POINTER_MARK == POINTER_MARK:
            if end is None:
                end = offset + 2
            offset = struct.unpack_from("!H", message, offset)[0] & 0x3FFF
            continue
        if length == 0:
            return ".".join(labels).lower(), end if end is not None else offset + 1
        labels.append(message[offset + 1:offset + 1 + length].decode("ascii"))
        offset += 1 + length
    raise ValueError("compression pointers loop")


@dataclass(frozen=True)
class ClientSubnetOption:
    """RFC 7871 §6, as sent: `address` is the ADDRESS bytes exactly as on the wire (cut to the prefix)."""
    family: int
    source_prefix: int
    scope_prefix: int
    address: bytes

    def network(self) -> str:
        """The address padded back to full length, as text ("203.0.113.0")."""
        family = ECS_FAMILIES[self.family]
        size = 4 if family == socket.AF_INET else 16
        return socket.inet_ntop(family, self.address + bytes(size - len(self.address)))


@dataclass(frozen=True)
class DnsQuery:
    id: int
    name: str
    type: str
    # (code, data) of every EDNS option in the OPT record, in order; None when there is no OPT record.
    edns_options: tuple[tuple[int, bytes], ...] | None
    opt_records: int

    def client_subnet(self) -> ClientSubnetOption | None:
        for code, data in self.edns_options or ():
            if code == ECS_OPTION_CODE:
                family, source, scope = struct.unpack_from("!HBB", data, 0)
                return ClientSubnetOption(family, source, scope, bytes(data[4:]))
        return None


def decode_query(message: bytes) -> DnsQuery:
    """One question and, in the additional section, at most what RFC 6891 allows: the OPT record and its
    options. Strict: anything after the last record is an error, so a miscounted ARCOUNT shows."""
    query_id, _, question_count, answer_count, authority_count, additional_count = HEADER.unpack_from(message, 0)
    if (question_count, answer_count, authority_count) != (1, 0, 0):
        raise ValueError(f"a query with {question_count}/{answer_count}/{authority_count} records")
    name, offset = _read_name(message, HEADER.size)
    question_type, _ = struct.unpack_from("!HH", message, offset)
    offset += 4
    options, opt_records = None, 0
    for _ in range(additional_count):
        _, offset = _read_name(message, offset)
        record_type, _, _, length = struct.unpack_from("!HHIH", message, offset)
        offset += 10
        data = message[offset:offset + length]
        if len(data) != length:
            raise ValueError("an additional record runs past the end of the message")
        offset += length
        if record_type == OPT_TYPE:
            opt_records += 1
            options, position = [], 0
            while position < len(data):
                code, option_length = struct.unpack_from("!HH", data, position)
                options.append((code, bytes(data[position + 4:position + 4 + option_length])))
                position += 4 + option_length
            options = tuple(options)
    if offset != len(message):
        raise ValueError(f"{len(message) - offset} bytes after the last record")
    return DnsQuery(query_id, name, _type_name(question_type), options, opt_records)


def encode_response(query: bytes, addresses: tuple[str, ...], ttl: int, exists: bool = True) -> bytes:
    """The answer to `query` (one question): its addresses of the asked type owned by the question name, or
    NXDOMAIN when the name does not `exist`. An OPT record in the query is echoed with its options (RFC 7871
    §7.2.1: ECS comes back with SCOPE set, here equal to SOURCE)."""
    parsed = decode_query(query)
    question_end = HEADER.size + len(_encode_name(parsed.name)) + 4
    question = query[HEADER.size:question_end]
    flags = FLAG_RESPONSE | FLAG_RECURSION_DESIRED | FLAG_RECURSION_AVAILABLE \
        | (RCODE_NO_ERROR if exists else RCODE_NAME_ERROR)
    record_type = RECORD_TYPES[parsed.type] if parsed.type in RECORD_TYPES else 0
    family = socket.AF_INET6 if parsed.type == "AAAA" else socket.AF_INET
    answers = b""
    for address in addresses if exists else ():
        data = socket.inet_pton(family, address)
        # A compression pointer to the question name right after the header (RFC 1035 §4.1.4).
        answers += struct.pack("!HHHIH", 0xC000 | HEADER.size, record_type, CLASS_IN, ttl, len(data)) + data
    additional = b""
    if parsed.edns_options is not None:
        options = b""
        for code, data in parsed.edns_options:
            if code == ECS_OPTION_CODE:
                data = data[:3] + data[2:3] + data[4:]
            options += struct.pack("!HH", code, len(data)) + data
        additional = b"\0" + struct.pack("!HHIH", OPT_TYPE, 1232, 0, len(options)) + options
    count = len(addresses) if exists else 0
    header = HEADER.pack(parsed.id, flags, 1, count, 0, 1 if additional else 0)
    return header + question + answers + additional


def _encode_name(name: str) -> bytes:
    labels = [label for label in name.rstrip(".").split(".") if label]
    return b"".join(bytes([len(label)]) + label.encode("ascii") for label in labels) + b"\0"

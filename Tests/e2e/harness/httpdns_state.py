"""What the HTTPDNS stub knows and remembers: its records, how each format misbehaves, what it was asked.

Shared by the stub's connection threads and changed by tests while it runs, so every access holds one lock.
"""

import threading
from collections import Counter
from dataclasses import dataclass, replace

# The TTL a record has when the test does not say.
DEFAULT_TTL = 60
# The formats the stub speaks; modes can be set for one of them or for all.
FORMATS = ("json", "aliyun", "tencent", "doh")
# What the `private` mode answers instead of the real addresses (RFC 1918 / RFC 4193 space).
PRIVATE_ADDRESSES = {"A": "10.0.0.1", "AAAA": "fd00::1"}
# A CNAME chain longer than this is a loop in the test's records.
MAXIMUM_CNAME_HOPS = 8
# Requests remembered for inspection; older ones are dropped.
REQUEST_LOG_LIMIT = 1000


@dataclass(frozen=True)
class StubRecord:
    a: tuple[str, ...] = ()
    aaaa: tuple[str, ...] = ()
    ttl: int = DEFAULT_TTL
    cname: str | None = None     # answered as a CNAME to this name, whose own record holds the addresses

    def addresses(self, record_type: str) -> tuple[str, ...]:
        return self.a if record_type == "A" else self.aaaa


@dataclass(frozen=True)
class StubMode:
    """How the stub answers: `normal`, `slow` (normal after `seconds`), `garbage` (200 with junk),
    `http_error` (`status` with a short body) or `private` (10.0.0.1 / fd00::1 instead of the records)."""
    kind: str = "normal"
    seconds: float = 0.0
    status: int = 503

    @classmethod
    def normal(cls) -> "StubMode":
        return cls("normal")

    @classmethod
    def slow(cls, seconds: float) -> "StubMode":
        return cls("slow", seconds=seconds)

    @classmethod
    def garbage(cls) -> "StubMode":
        return cls("garbage")

    @classmethod
    def http_error(cls, status: int = 503) -> "StubMode":
        return cls("http_error", status=status)

    @classmethod
    def private(cls) -> "StubMode":
        return cls("private")


@dataclass(frozen=True)
class Resolution:
    """A name looked up in the stub's records: the CNAMEs on the way (owner, target, ttl) and the final record."""
    exists: bool
    cnames: tuple[tuple[str, str, int], ...]
    owner: str
    record: StubRecord | None

    def addresses(self, record_type: str) -> tuple[str, ...]:
        return () if self.record is None else self.record.addresses(record_type)

    @property
    def ttl(self) -> int:
        return DEFAULT_TTL if self.record is None else self.record.ttl


@dataclass(frozen=True)
class StubRequest:
    format: str
    name: str
    types: frozenset[str]
    target: str
    headers: dict[str, str]
    # doh: the DNS message as received (from `?dns=` or the POST body), to read its EDNS options.
    message: bytes = b""


def normalised(name: str) -> str:
    return name.lower().rstrip(".")


class StubState:
    def __init__(self, records: dict[str, StubRecord]):
        self._lock = threading.Lock()
        self._initial_records = {normalised(name): record for name, record in records.items()}
        self._records = dict(self._initial_records)
        self._modes: dict[str | None, StubMode] = {}
        self._counts: Counter = Counter()
        self._requests: list[StubRequest] = []
        self.connections = 0

    # Records -------------------------------------------------------------------------------------------------
    def set_record(self, name: str, record: StubRecord) -> None:
        with self._lock:
            self._records[normalised(name)] = record

    def remove(self, name: str) -> None:
        with self._lock:
            self._records.pop(normalised(name), None)

    def resolve(self, name: str, mode: StubMode) -> Resolution:
        with self._lock:
            owner, cnames = normalised(name), []
            for _ in range(MAXIMUM_CNAME_HOPS):
                record = self._records.get(owner)
                if record is None or record.cname is None:
                    break
                cnames.append((owner, normalised(record.cname), record.ttl))
                owner = normalised(record.cname)
            else:
                raise ValueError(f"CNAME loop at {name}")
        if record is not None and mode.kind == "private":
            record = replace(record, a=(PRIVATE_ADDRESSES["A"],) if record.a else (),
                             aaaa=(PRIVATE_ADDRESSES["AAAA"],) if record.aaaa else ())
        return Resolution(record is not None or bool(cnames), tuple(cnames), owner, record)

    # Modes ---------------------------------------------------------------------------------------------------
    def set_mode(self, mode: StubMode, format: str | None = None) -> None:
        """`format` None sets the mode of every format without one of its own."""
        if format is not None and format not in FORMATS:
            raise ValueError(f"unknown format {format!r}; expected one of {FORMATS}")
        with self._lock:
            self._modes[format] = mode

    def mode(self, format: str) -> StubMode:
        with self._lock:
            return self._modes.get(format) or self._modes.get(None) or StubMode.normal()

    # Counting ------------------------------------------------------------------------------------------------
    def record_request(self, request: StubRequest) -> None:
        with self._lock:
            self._counts[(request.format, request.name, request.types)] += 1
            self._requests = (self._requests + [request])[-REQUEST_LOG_LIMIT:]

    def count(self, format: str | None = None, name: str | None = None, rtype: str | None = None) -> int:
        """Requests that reached a format's handler (answered or refused), for `format` (or any), `name`
        (or any) and asking for `rtype` (or anything; an aliyun `query=4,6` or tencent `type=addrs`
        request asks for both A and AAAA)."""
        wanted_name = None if name is None else normalised(name)
        with self._lock:
            return sum(total for (asked_format, asked_name, types), total in self._counts.items()
                       if (format is None or asked_format == format)
                       and (wanted_name is None or asked_name == wanted_name)
                       and (rtype is None or rtype in types))

    def requests(self, format: str | None = None) -> list[StubRequest]:
        with self._lock:
            return [request for request in self._requests if format is None or request.format == format]

    def count_connection(self) -> None:
        with self._lock:
            self.connections += 1

    def reset_counts(self) -> None:
        with self._lock:
            self._counts.clear()
            self._requests = []
            self.connections = 0

    def reset(self) -> None:
        """Records back to those given at start, every mode normal, counts from zero."""
        with self._lock:
            self._records = dict(self._initial_records)
            self._modes = {}
        self.reset_counts()

"""Plays systemd's side of the sd_notify(3) protocol: a unix datagram socket that collects state messages.

`path` binds a socket file; otherwise an abstract name is used, which NOTIFY_SOCKET writes with a leading `@`.
"""

import os
import socket
import time
from pathlib import Path

# Largest notify datagram read at once; systemd's own limit is far above what ipdirect sends.
DATAGRAM_BYTES = 4096
POLL_SECONDS = 0.05


class NotifySocket:
    def __init__(self, path: Path | None = None):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if path is None:
            name = f"ipdirect-e2e-notify-{os.getpid()}-{time.monotonic_ns()}"
            self.sock.bind("\0" + name)
            self.environment_value = "@" + name
        else:
            self.sock.bind(str(path))
            self.environment_value = str(path)
        self.sock.settimeout(POLL_SECONDS)
        # Each datagram, as a dict of its KEY=VALUE lines, with the monotonic time it arrived.
        self.messages: list[tuple[float, dict[str, str]]] = []

    def close(self) -> None:
        self.sock.close()

    def _receive_pending(self) -> None:
        while True:
            try:
                datagram = self.sock.recv(DATAGRAM_BYTES)
            except (socket.timeout, BlockingIOError):
                return
            fields = dict(line.split("=", 1) for line in datagram.decode().split("\n") if "=" in line)
            self.messages.append((time.monotonic(), fields))

    def wait_for(self, key: str, value: str = "1", timeout: float = 10.0, after: int = 0) -> int:
        """Index of the first message from `after` on that sets `key=value`; fails after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            self._receive_pending()
            for index, (_, fields) in enumerate(self.messages[after:], start=after):
                if fields.get(key) == value:
                    return index
            if time.monotonic() >= deadline:
                raise AssertionError(f"no {key}={value} within {timeout}s; received: {self.states()}")

    def collect_for(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self._receive_pending()

    def states(self) -> list[dict[str, str]]:
        return [fields for _, fields in self.messages]

    def count(self, key: str) -> int:
        return sum(1 for fields in self.states() if key in fields)

"""A loopback port where TCP connects hang, for connect-timeout tests without leaving the machine.

Linux drops SYNs to a listener whose accept queue is full (with tcp_abort_on_overflow=0, the default), so the
client keeps retransmitting until its own timeout. A backlog of 0 plus one connection never accepted fills it.
"""

import socket

from .ports import LOOPBACK

# The smallest backlog; Linux then queues a single connection.
SMALLEST_BACKLOG = 0
# How long the self-check waits to see that a connect really hangs.
PROBE_TIMEOUT_SECONDS = 0.5
# Connections held to keep the queue full; more than the kernel's queue allows, in case it queues more.
FILLER_CONNECTIONS = 2


class BlackholeListener:
    def __init__(self, host: str = LOOPBACK):
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.bind((host, 0))
        self._listener.listen(SMALLEST_BACKLOG)
        self.host = host
        self.port = self._listener.getsockname()[1]
        self._fillers: list[socket.socket] = []

    def start(self) -> "BlackholeListener":
        for _ in range(FILLER_CONNECTIONS):
            filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            filler.setblocking(False)
            filler.connect_ex((self.host, self.port))
            self._fillers.append(filler)
        return self

    def connect_hangs(self) -> bool:
        """True if a fresh connect does not complete within the probe timeout."""
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.settimeout(PROBE_TIMEOUT_SECONDS)
            try:
                probe.connect((self.host, self.port))
            except socket.timeout:
                return True
            except OSError:
                return False
            return False

    def stop(self) -> None:
        for filler in self._fillers:
            filler.close()
        self._listener.close()

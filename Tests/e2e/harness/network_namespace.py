"""A private network of one test: a Linux network namespace with its own loopback and documentation addresses.

Created with `ip netns add` (root only), `lo` up, and the given addresses (192.0.2.0/24, 2001:db8::/32: RFC 5737
and RFC 3849 documentation space, so nothing here can ever mean a real host) added to `lo`. Nothing inside can
reach the machine's own network, and nothing outside can reach in.

Two ways in:
- `command(argv)` / `run(argv)`: a process started by `ip netns exec NAME ...` (ipdirect, curl, nft, ip).
- `entered()`: the calling thread itself joins the namespace for a `with` block (setns(2) affects one thread
  only). Sockets created inside the block belong to the namespace for their whole life, so in-process servers
  (the origins, the HTTPDNS stub) bind there and test clients connect from there, without a subprocess.
"""

import ctypes
import itertools
import os
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path

# setns(2) flag for a network namespace (linux/sched.h).
CLONE_NEWNET = 0x40000000
# Where `ip netns add` puts the namespace's handle.
NETNS_DIRECTORY = Path("/run/netns")
# `ip` and `nft` answer in milliseconds; anything slower is a broken machine, not a test subject.
COMMAND_TIMEOUT_SECONDS = 30
# Documentation addresses every namespace gets unless a test asks for others.
DEFAULT_ADDRESSES = ("192.0.2.1", "192.0.2.2", "192.0.2.3")

_libc = ctypes.CDLL(None, use_errno=True)
_sequence = itertools.count(1)


class NamespaceCommandFailed(RuntimeError):
    pass


def namespaces_available() -> bool:
    """Creating a namespace needs root (CAP_SYS_ADMIN) and the `ip` tool."""
    return os.geteuid() == 0 and shutil.which("ip") is not None


def _run(argv: list[str], check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_SECONDS)
    if check and result.returncode != 0:
        raise NamespaceCommandFailed(f"{' '.join(argv)} exited {result.returncode}: {result.stderr.strip()}")
    return result


def _setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"setns: {os.strerror(error)}")


class NetworkNamespace:
    def __init__(self, name: str):
        self.name = name
        self.addresses: list[str] = []
        self._created = False

    @classmethod
    def create(cls, addresses=DEFAULT_ADDRESSES, prefix: str = "ipde2e") -> "NetworkNamespace":
        """A new namespace named uniquely for this process, `lo` up and `addresses` on it; deleted by
        `delete()` (also when setting it up fails half-way)."""
        namespace = cls(f"{prefix}-{os.getpid()}-{next(_sequence)}")
        _run(["ip", "netns", "add", namespace.name])
        namespace._created = True
        try:
            namespace.run(["ip", "link", "set", "lo", "up"])
            for address in addresses:
                namespace.add_address(address)
        except Exception:
            namespace.delete()
            raise
        return namespace

    def delete(self) -> None:
        """Idempotent. Processes still running inside keep their network alive until they exit, so stop
        them first."""
        if self._created:
            _run(["ip", "netns", "del", self.name], check=False)
            self._created = False

    # Addresses ---------------------------------------------------------------------------------------------
    def add_address(self, address: str) -> None:
        """One host address (/32 or /128) on `lo`; a netlink address change anything inside can see."""
        prefix = 128 if ":" in address else 32
        self.run(["ip", "addr", "add", f"{address}/{prefix}", "dev", "lo"])
        self.addresses.append(address)

    def remove_address(self, address: str) -> None:
        prefix = 128 if ":" in address else 32
        self.run(["ip", "addr", "del", f"{address}/{prefix}", "dev", "lo"])
        self.addresses.remove(address)

    # Processes inside --------------------------------------------------------------------------------------
    def command(self, argv: list[str]) -> list[str]:
        """`argv` run inside the namespace (`ip netns exec` execs it: the pid stays the program's own)."""
        return ["ip", "netns", "exec", self.name, *argv]

    def run(self, argv: list[str], check: bool = True, timeout: float = COMMAND_TIMEOUT_SECONDS
            ) -> subprocess.CompletedProcess:
        result = subprocess.run(self.command(argv), capture_output=True, text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise NamespaceCommandFailed(f"in {self.name}: {' '.join(argv)} exited {result.returncode}: "
                                         f"{result.stderr.strip()}")
        return result

    # The calling thread inside -----------------------------------------------------------------------------
    @contextmanager
    def entered(self):
        """The calling thread is in the namespace for the block; its sockets created there stay there."""
        home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        try:
            target = os.open(NETNS_DIRECTORY / self.name, os.O_RDONLY)
            try:
                _setns(target)
            finally:
                os.close(target)
            try:
                yield self
            finally:
                _setns(home)
        finally:
            os.close(home)

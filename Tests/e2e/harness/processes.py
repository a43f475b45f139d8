"""A server process started by the tests: output captured to files, readiness by port, bounded shutdown."""

import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Callable

from .ports import LOOPBACK, free_ports

# How long a freshly started server gets to accept its first connection.
STARTUP_TIMEOUT_SECONDS = 20.0
# Pause between readiness probes.
POLL_INTERVAL_SECONDS = 0.05
# How long a server gets to exit after SIGTERM before it is killed.
STOP_GRACE_SECONDS = 5.0
# Only the end of a long log is worth showing in a failure report.
LOG_TAIL_CHARACTERS = 6000


class ProcessFailedToStart(RuntimeError):
    pass


class ManagedProcess:
    """One child process; stdout and stderr go to `<name>.stdout` / `<name>.stderr` in `log_dir`."""

    def __init__(self, name: str, argv: list[str], log_dir: Path, env: dict | None = None, cwd: Path | None = None):
        self.name = name
        self.argv = argv
        self.stdout_path = log_dir / f"{name}.stdout"
        self.stderr_path = log_dir / f"{name}.stderr"
        self.env = env
        self.cwd = cwd
        self.popen: subprocess.Popen | None = None

    def start(self) -> "ManagedProcess":
        self.stdout_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.stdout_path, "ab") as out, open(self.stderr_path, "ab") as err:
            self.popen = subprocess.Popen(
                self.argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                env=self.env, cwd=self.cwd, start_new_session=True,
            )
        return self

    @property
    def pid(self) -> int:
        assert self.popen is not None, f"{self.name} was never started"
        return self.popen.pid

    def is_running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def exit_code(self) -> int | None:
        return None if self.popen is None else self.popen.poll()

    def wait_for_port(self, host: str, port: int, timeout: float = STARTUP_TIMEOUT_SECONDS) -> None:
        """Returns once `host:port` accepts a connection; raises with the logs if the process died or timed out."""
        deadline = time.monotonic() + timeout
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        while time.monotonic() < deadline:
            if not self.is_running():
                raise ProcessFailedToStart(
                    f"{self.name} exited with code {self.exit_code()} before listening on {host}:{port}\n"
                    f"{self.describe_output()}")
            with socket.socket(family, socket.SOCK_STREAM) as probe:
                probe.settimeout(POLL_INTERVAL_SECONDS * 10)
                if probe.connect_ex((host, port)) == 0:
                    return
            time.sleep(POLL_INTERVAL_SECONDS)
        raise ProcessFailedToStart(f"{self.name} did not listen on {host}:{port} within {timeout}s\n"
                                   f"{self.describe_output()}")

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after a grace period; only this process group, which we created."""
        if self.popen is None or self.popen.poll() is not None:
            return
        self._signal_group(signal.SIGTERM)
        try:
            self.popen.wait(timeout=STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            self._signal_group(signal.SIGKILL)
            self.popen.wait(timeout=STOP_GRACE_SECONDS)

    def _signal_group(self, signum: int) -> None:
        try:
            os.killpg(self.popen.pid, signum)
        except ProcessLookupError:
            pass

    def stdout_text(self) -> str:
        return _read_text(self.stdout_path)

    def stderr_text(self) -> str:
        return _read_text(self.stderr_path)

    def describe_output(self) -> str:
        return (f"--- {self.name} command: {' '.join(self.argv)}\n"
                f"--- {self.name} stderr (tail):\n{self.stderr_text()[-LOG_TAIL_CHARACTERS:]}\n"
                f"--- {self.name} stdout (tail):\n{self.stdout_text()[-LOG_TAIL_CHARACTERS:]}")


def _read_text(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except FileNotFoundError:
        return ""


# A port picked free can be taken by another process before the server binds it; this many tries is plenty.
START_ATTEMPTS = 3


def start_on_free_ports(name: str, port_count: int, log_dir: Path,
                        command_for: Callable[[list[int]], list[str]],
                        listening: Callable[[list[int]], list[int]] | None = None,
                        failure_detail: Callable[[], str] | None = None) -> tuple[ManagedProcess, list[int]]:
    """Starts the server `command_for(ports)` returns (it writes whatever configuration those ports need first)
    on `port_count` fresh free loopback ports, and waits until `listening(ports)` (all of them by default) accept
    connections, retrying on fresh ports when another process took one between picking and binding it."""
    last_error = None
    for attempt in range(START_ATTEMPTS):
        ports = free_ports(port_count)
        process = ManagedProcess(f"{name}-{attempt}", command_for(ports), log_dir)
        process.start()
        try:
            for port in (listening(ports) if listening else ports):
                process.wait_for_port(LOOPBACK, port)
            return process, ports
        except ProcessFailedToStart as error:
            process.stop()
            last_error = error
    detail = f"\n{failure_detail()}" if failure_detail else ""
    raise ProcessFailedToStart(f"{name} did not start in {START_ATTEMPTS} attempts: {last_error}{detail}")

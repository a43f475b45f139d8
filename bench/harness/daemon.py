"""A server process under test: start it, wait until it listens, read its cost from /proc, stop it."""

import os
import signal
import socket
import subprocess
import time

# How long a server may take to start listening (squid is the slowest, about a second).
START_TIMEOUT_SECONDS = 20
# How often to retry the readiness probe while a server starts.
START_POLL_SECONDS = 0.1
# How long a server may take to exit after SIGTERM before its process group is killed.
STOP_TIMEOUT_SECONDS = 10
# Lines of a failed server's log shown to the user.
LOG_TAIL_LINES = 15
# /proc/PID/stat fields (1-based, counted after the parenthesised command name): ppid, utime, stime.
STAT_PPID_FIELD = 4
STAT_UTIME_FIELD = 14
STAT_STIME_FIELD = 15

CLOCK_TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


class DaemonError(Exception):
    """A server that did not start; the message says why and shows its log."""


class Daemon:
    """One server process that the benchmark started, identified by its pid (and its own process group)."""

    def __init__(self, name, argv, port, log_path, env=None, host="127.0.0.1"):
        self.name = name
        self.argv = argv
        self.port = port
        self.host = host  # the loopback address it listens on
        self.log_path = log_path
        self.env = env
        self.process = None

    def __str__(self):
        state = "stopped" if self.process is None else f"pid={self.process.pid}"
        return f"{self.name} port={self.port} {state}"

    def start(self):
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                self.argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                env=self.env, start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code = self.process.returncode
                self.process = None
                raise DaemonError(f"{self.name} exited with status {code}\n{self.log_tail()}")
            if _accepts_connections(self.host, self.port):
                return
            time.sleep(START_POLL_SECONDS)
        self.stop()
        raise DaemonError(f"{self.name} did not listen on port {self.port} within "
                          f"{START_TIMEOUT_SECONDS} s\n{self.log_tail()}")

    def stop(self):
        """Stops the server and everything it forked; safe to call twice."""
        if self.process is None:
            return
        process, self.process = self.process, None
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=STOP_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                pass
        # The group id is the pid we started (start_new_session): this reaches only our own children,
        # such as nginx workers left behind by a master that died.
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()

    def log_tail(self):
        try:
            with open(self.log_path, errors="replace") as log:
                lines = log.readlines()[-LOG_TAIL_LINES:]
        except OSError:
            return "(no log)"
        return "".join("    " + line for line in lines)

    def is_running(self):
        return self.process is not None and self.process.poll() is None

    def tree_pids(self):
        """The server's pid and all its descendants, from the parent links in /proc."""
        if self.process is None:
            return []
        children = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                fields = _stat_fields(int(entry))
                if fields:
                    children.setdefault(int(fields[STAT_PPID_FIELD - 1]), []).append(int(entry))
        tree, pending = [], [self.process.pid]
        while pending:
            pid = pending.pop()
            tree.append(pid)
            pending.extend(children.get(pid, []))
        return tree

    def rss_kib(self):
        """Resident memory of the process tree in KiB (VmRSS covers every thread of a process)."""
        total = 0
        for pid in self.tree_pids():
            try:
                with open(f"/proc/{pid}/status") as status:
                    for line in status:
                        if line.startswith("VmRSS:"):
                            total += int(line.split()[1])
            except OSError:
                pass
        return total

    def cpu_seconds(self):
        """User plus system CPU time of the process tree; a process's figure includes its exited threads."""
        ticks = 0
        for pid in self.tree_pids():
            fields = _stat_fields(pid)
            if fields:
                ticks += int(fields[STAT_UTIME_FIELD - 1]) + int(fields[STAT_STIME_FIELD - 1])
        return ticks / CLOCK_TICKS_PER_SECOND


def _stat_fields(pid):
    """Fields of /proc/PID/stat, numbered from 1 = pid like proc(5); the name may contain spaces."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            text = stat.read()
    except OSError:
        return None
    head, _, tail = text.rpartition(")")
    return [head.split(" (", 1)[0], head.split(" (", 1)[1]] + tail.split()


def _accepts_connections(host, port):
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False

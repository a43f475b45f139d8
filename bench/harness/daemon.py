"""A server process under test: start it, wait until it listens, read its cost (memory, descriptors, CPU time) from
/proc, stop it."""

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
# Where `ip netns add` mounts a named network namespace.
NETNS_DIR = "/run/netns"
# /proc/net/tcp and udp: the socket state column's value for a listening TCP socket (TCP_LISTEN) and for a
# bound, unconnected UDP one (TCP_CLOSE).
TCP_LISTEN_STATE = "0A"
UDP_BOUND_STATE = "07"


class DaemonError(Exception):
    """A server that did not start; the message says why and shows its log."""


class Daemon:
    """One server process that the benchmark started, identified by its pid (and its own process group)."""

    def __init__(self, name, argv, port, log_path, env=None, host="127.0.0.1", namespace=None, udp=False,
                 start_timeout=START_TIMEOUT_SECONDS):
        self.name = name
        self.port = port
        self.host = host  # the address it listens on
        self.log_path = log_path
        self.env = env
        # A network namespace (`ip netns add NAME`) to run in: `ip netns exec` enters it and then execs the
        # server, so the pid we hold is still the server's own.
        self.namespace = namespace
        self.argv = ["ip", "netns", "exec", namespace, *argv] if namespace else argv
        self.udp = udp  # a UDP server (namespace only): ready once its socket is bound
        # Longer for a server run under valgrind, which starts many times slower.
        self.start_timeout = start_timeout
        self.process = None

    def __str__(self):
        state = "stopped" if self.process is None else f"pid={self.process.pid}"
        return f"{self.name} port={self.port} {state}"

    def start(self):
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                self.argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                env=self.env, start_new_session=True)
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code = self.process.returncode
                self.process = None
                raise DaemonError(f"{self.name} exited with status {code}\n{self.log_tail()}")
            if self._listening():
                return
            time.sleep(START_POLL_SECONDS)
        self.stop()
        raise DaemonError(f"{self.name} did not listen on port {self.port} within "
                          f"{self.start_timeout} s\n{self.log_tail()}")

    def stop(self, signal_number=signal.SIGTERM, timeout=STOP_TIMEOUT_SECONDS):
        """Stops the server and everything it forked; safe to call twice. Returns the server's exit status, or
        None when it had to be killed (or was already stopped)."""
        if self.process is None:
            return None
        process, self.process = self.process, None
        status = None
        if process.poll() is None:
            process.send_signal(signal_number)
            try:
                status = process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        else:
            status = process.returncode
        # The group id is the pid we started (start_new_session): this reaches only our own children,
        # such as nginx workers left behind by a master that died.
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()
        return status

    def _listening(self):
        """Whether the server accepts connections yet. Inside a namespace this process cannot connect to it,
        so the answer comes from the namespace's own socket table instead, once the process has entered it."""
        if not self.namespace:
            return _accepts_connections(self.host, self.port)
        try:
            if os.stat(f"/proc/{self.process.pid}/ns/net").st_ino != os.stat(f"{NETNS_DIR}/{self.namespace}").st_ino:
                return False
            with open(f"/proc/{self.process.pid}/net/{'udp' if self.udp else 'tcp'}") as table:
                state = UDP_BOUND_STATE if self.udp else TCP_LISTEN_STATE
                return any(_is_listener(line, self.host, self.port, state) for line in table)
        except OSError:
            return False

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

    def descriptor_count(self):
        """Open file descriptors of the process tree (threads share their process's table, so each counts once)."""
        total = 0
        for pid in self.tree_pids():
            try:
                total += len(os.listdir(f"/proc/{pid}/fd"))
            except OSError:
                pass
        return total

    def cpu_seconds(self):
        """User plus system CPU time of the process tree; a process's figure includes its exited threads."""
        return sum(self.cpu_seconds_by_mode())

    def cpu_seconds_by_mode(self):
        """(user, system) CPU time of the process tree, each as cpu_seconds counts it."""
        user = system = 0
        for pid in self.tree_pids():
            fields = _stat_fields(pid)
            if fields:
                user += int(fields[STAT_UTIME_FIELD - 1])
                system += int(fields[STAT_STIME_FIELD - 1])
        return user / CLOCK_TICKS_PER_SECOND, system / CLOCK_TICKS_PER_SECOND


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


def _is_listener(line, host, port, state):
    """One line of /proc/PID/net/tcp or udp: "sl local_address rem_address st ...", where local_address is the
    IPv4 address as host-order hex of the network-order bytes (little-endian here) and the port in hex."""
    fields = line.split()
    if len(fields) < 4 or fields[3] != state or ":" not in fields[1]:
        return False
    address, _, listen_port = fields[1].partition(":")
    wanted = "".join(f"{int(octet):02X}" for octet in reversed(host.split(".")))
    return int(listen_port, 16) == port and address in (wanted, "00000000")

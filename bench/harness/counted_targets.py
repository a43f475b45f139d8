"""The servers bench/callgrind and bench/syscalls count, each as one process with one event loop so that a tool
wrapped around it (valgrind, strace) sees all of its work: ipdirect with one worker, nginx with no master process
and HAProxy with one thread. All three forward plain http:// requests to the one bench origin, keep idle upstream
connections and reuse them, and log nothing per request. Their configs are bench/config/*-callgrind.*.in."""

import os
import shutil
import signal
import subprocess
import time

from harness.build import ipdirect_binary
from harness.certificates import Certificates
from harness.daemon import Daemon, DaemonError
from harness.install import ensure_packages, missing_packages
from harness.proxy_client import MEBIBYTE, MEBIBYTE_FILE
from harness.targets import Environment, free_port

# Under valgrind a server starts some 50 times slower than natively, more on a busy machine.
WRAPPED_START_TIMEOUT_SECONDS = 120
# After the stop signal: the server drains (nothing is in flight by then) and callgrind or strace writes its file.
WRAPPED_STOP_TIMEOUT_SECONDS = 120
# How long a server that may be signalled again is given to exit before the next stop signal.
SIGNAL_AGAIN_SECONDS = 5
# Directories of the run directory with the targets' configs and logs, kept after a run.
RUN_FILES = ("ipdirect", "nginx-peer", "haproxy-peer", "logs")


class CountedTarget:
    """A server as these scripts start it: the Debian package that has it (None for ipdirect, which is built),
    the signal that makes it exit cleanly once its clients have gone, and how to make its Daemon."""

    def __init__(self, name, package, stop_signal, make, signal_again=False):
        self.name = name
        self.package = package
        self.stop_signal = stop_signal
        self._make = make
        # Whether the stop signal is sent again while the server has not exited: only where a second one means
        # the same as the first.
        self.signal_again = signal_again

    def daemon(self, environment, variant, wrapper, binary=None):
        """An unstarted Daemon named `name`-`variant`, run by `wrapper` (valgrind or strace and their options)."""
        daemon = self._make(environment, f"{self.name}-{variant}", list(wrapper), binary)
        daemon.start_timeout = WRAPPED_START_TIMEOUT_SECONDS
        return daemon

    def version(self, binary=None):
        if self.name == "ipdirect":
            return binary
        command = ["nginx", "-v"] if self.name == "nginx" else ["haproxy", "-v"]
        result = subprocess.run(command, capture_output=True, text=True)
        return (result.stdout + result.stderr).strip().splitlines()[0]


def _ipdirect(environment, name, wrapper, binary):
    # SIGINT: ipdirect drains its connections and exits 0, so callgrind writes its count.
    return environment.ipdirect(binary, name.removeprefix("ipdirect-"), template="ipdirect-callgrind.toml.in",
                                wrapper=wrapper)


def _nginx(environment, name, wrapper, _binary):
    port = free_port()
    config = environment.render("nginx-proxy-callgrind.conf.in", f"nginx-peer/{name}/nginx.conf",
                                NGINX_PROXY_PORT=port, NAME=name)
    directory = os.path.dirname(config)
    # -e: the error log from the first moment, before the config's error_log applies.
    argv = [*wrapper, "nginx", "-p", directory, "-c", config, "-e", os.path.join(directory, "error.log")]
    return Daemon(name, argv, port, environment.log(f"{name}.out"))


def _haproxy(environment, name, wrapper, _binary):
    port = free_port()
    config = environment.render("haproxy-callgrind.cfg.in", f"haproxy-peer/{name}.cfg", HAPROXY_PORT=port)
    # -db: in the foreground, no master process.
    return Daemon(name, [*wrapper, "haproxy", "-db", "-f", config], port, environment.log(f"{name}.out"))


TARGETS = {
    "ipdirect": CountedTarget("ipdirect", None, signal.SIGINT, _ipdirect),
    # SIGTERM: a fast shutdown, exit status 0; nothing is in flight by then.
    # nginx's handler only sets a flag, read when a wait for events returns: a signal that arrives while nginx is
    # closing the client's connection (which under callgrind takes long enough to be hit) leaves it waiting
    # with no timer and no connection, so the signal is sent again until it exits.
    "nginx": CountedTarget("nginx", "nginx-light", signal.SIGTERM, _nginx, signal_again=True),
    # SIGUSR1: a soft stop, which ends once no connection is left (exit status 0); SIGTERM would exit with 143.
    "haproxy": CountedTarget("haproxy", "haproxy", signal.SIGUSR1, _haproxy, signal_again=True),
}


def choose_targets(requested, packages, skip_install, log):
    """The targets to measure, in TARGETS' order: `requested` (a comma-separated list, None for every target that
    can run here) after installing what they and `packages` need. Without root, a target left out of the
    default whose package is missing is named in a note rather than failing the run."""
    if requested:
        names = [name.strip() for name in requested.split(",") if name.strip()]
        unknown = [name for name in names if name not in TARGETS]
        if unknown:
            raise SystemExit(f"unknown target {', '.join(unknown)}; choose from {', '.join(TARGETS)}")
    else:
        names = list(TARGETS)
        if os.geteuid() != 0 or skip_install:
            absent = [name for name in names if TARGETS[name].package and missing_packages([TARGETS[name].package])]
            for name in absent:
                log(f"leaving out {name}: package {TARGETS[name].package} is not installed")
            names = [name for name in names if name not in absent]
    wanted = packages + [TARGETS[name].package for name in names if TARGETS[name].package]
    if not skip_install:
        ensure_packages(log, list(dict.fromkeys(wanted)))
    return [name for name in TARGETS if name in names]


def origin_environment(bench_dir, repo_dir, run_dir, names, rebuild, log):
    """The run directory's origin, started: bench/run's nginx serving a 1 KiB and a 1 MiB file on free loopback
    ports. Returns (environment, origin, the ipdirect binary or None when ipdirect is not in `names`)."""
    # World-traversable: the origin nginx's worker runs as another user when started by root.
    os.chmod(run_dir, 0o755)
    environment = Environment(bench_dir, run_dir, Certificates(os.path.join(run_dir, "tls")))
    environment.certificates.create()
    environment.prepare(large_file=False)
    environment.add_random_file(MEBIBYTE_FILE, MEBIBYTE)
    binary = None
    if "ipdirect" in names:
        binary, problem = ipdirect_binary(repo_dir, environment.log("ipdirect-build.txt"), rebuild, log)
        if not binary:
            raise SystemExit(f"no ipdirect binary: {problem}")
    origin = environment.origin()
    try:
        origin.start()
    except DaemonError as error:
        raise SystemExit(str(error))
    return environment, origin, binary


def served(target, daemon, send, stop_child=False):
    """Starts `daemon`, calls `send(port)`, and stops the server with its target's signal (again every
    SIGNAL_AGAIN_SECONDS where the target allows it); returns its exit status. With `stop_child` the daemon is a tracer (strace) whose one child is the server: the signal goes to
    the server, and the tracer exits with the server's status once it has written its output."""
    try:
        daemon.start()
        send(daemon.port)
        server = _only_child(daemon.process.pid) if stop_child else daemon.process.pid
        deadline = time.monotonic() + WRAPPED_STOP_TIMEOUT_SECONDS
        while daemon.process.poll() is None and time.monotonic() < deadline:
            os.kill(server, target.stop_signal)
            wait = SIGNAL_AGAIN_SECONDS if target.signal_again else WRAPPED_STOP_TIMEOUT_SECONDS
            try:
                daemon.process.wait(timeout=max(0, min(wait, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                pass
        # The exit status once it has exited; otherwise it is terminated and killed, and the status is None.
        return daemon.stop()
    finally:
        daemon.stop()


def _only_child(pid):
    with open(f"/proc/{pid}/task/{pid}/children") as listing:
        children = listing.read().split()
    if len(children) != 1:
        raise SystemExit(f"process {pid} has {len(children)} children instead of the one server")
    return int(children[0])


def keep_run_files(run_dir, kept_dir):
    """The targets' configs and the logs (valgrind's or strace's messages among them) next to the output files."""
    for sub in RUN_FILES:
        source = os.path.join(run_dir, sub)
        if os.path.isdir(source):
            shutil.copytree(source, os.path.join(kept_dir, sub), dirs_exist_ok=True)

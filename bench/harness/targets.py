"""The run directory, the origin server and the things measured: direct, ipdirect, tinyproxy, squid and dante
(the nginx-proxy, haproxy and ats peers are started by harness/peers.py)."""

import os
import pwd
import re
import resource
import shutil
import socket

from harness.daemon import Daemon

BENCH_HOST = "bench.test"
SMALL_FILE = "1k.bin"
SMALL_FILE_BYTES = 1024
LARGE_FILE = "100m.bin"
LARGE_FILE_BYTES = 100 * 2**20
# Written in pieces so making the large file does not hold 100 MiB in memory.
LARGE_FILE_CHUNK_BYTES = 2**20
NGINX_WORKERS = 1
# Above the idle-connection count plus the load runs' connections, for every server.
MAX_CLIENTS = 4096
MAX_FILE_DESCRIPTORS = 16384
SQUID_USER = "proxy"
TINYPROXY_USER = "tinyproxy"
# danted's two users (user.privileged and user.unprivileged in danted.conf.in, as Debian's /etc/danted.conf has
# them); both must be able to write its directory, where it keeps its log, pid file and TMPDIR lock files.
DANTE_PRIVILEGED_USER = "proxy"
DANTE_UNPRIVILEGED_USER = "nobody"
PLACEHOLDER = re.compile(r"@([A-Z_]+)@")
# What a private mount namespace shows tinyproxy and dante as /etc/hosts and /etc/resolv.conf: bench.test is
# known, and any other lookup goes to a loopback address where nothing answers.
HOSTS_TEXT = f"127.0.0.1 localhost\n127.0.0.1 {BENCH_HOST}\n"
# Port 53 of this address has no listener: a DNS server that is never there.
DEAD_NAMESERVER = "127.0.0.1"
RESOLV_TEXT = f"nameserver {DEAD_NAMESERVER}\n"
TARGET_NAMES = ("direct", "ipdirect", "ipdirect-logging", "tinyproxy", "squid", "dante", "nginx-proxy", "haproxy",
                "ats")
# Targets that are SOCKS servers only: no HTTP proxy requests and no CONNECT, so only the SOCKS5 rows apply.
SOCKS_ONLY_TARGETS = ("dante",)
# HTTP proxies that cannot open a CONNECT tunnel, and why: their CONNECT rows say "cannot" with this reason.
CANNOT_CONNECT = {
    "nginx-proxy": "nginx has no CONNECT method (it answers 400); its proxy module forwards requests only",
    "haproxy": "haproxy 2.6 passes a CONNECT request on to a server rather than answering it and opening a "
               "tunnel itself; the benchmark's configuration refuses it (403)",
}
# The ipdirect column with its access log on, written to this file in the run directory. Its suffix is not one
# that bench/run keeps after the run: a full run writes hundreds of megabytes of log lines.
ACCESS_LOG_FILE = "ipdirect-logging.access"
# ipdirect's own default: idle upstream connections kept per host and port.
DEFAULT_UPSTREAM_MAX_IDLE_PER_HOST = 32


def free_port():
    """A loopback port nothing listens on right now (the kernel picks it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def raise_file_limit():
    """The idle-connection test needs more descriptors than the usual soft limit of 1024, here and in
    every server (they inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = MAX_FILE_DESCRIPTORS if hard == resource.RLIM_INFINITY else min(hard, MAX_FILE_DESCRIPTORS)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


class Environment:
    """Everything one run creates under bench/out/run: configs, certificates, files, pid and log dirs."""

    def __init__(self, bench_dir, run_dir, certificates):
        self.bench_dir = bench_dir
        self.run_dir = run_dir
        self.certificates = certificates
        self.http_port = free_port()
        self.tls_port = free_port()
        # The same files over TLS from a server that never resumes a session.
        self.tls_full_handshake_port = free_port()
        self.values = {"RUN_DIR": run_dir, "HTTP_PORT": self.http_port, "TLS_PORT": self.tls_port,
                       "TLS_FULL_HANDSHAKE_PORT": self.tls_full_handshake_port,
                       "NGINX_WORKERS": NGINX_WORKERS, "MAX_CLIENTS": MAX_CLIENTS,
                       "MAX_FILE_DESCRIPTORS": MAX_FILE_DESCRIPTORS}

    def __str__(self):
        return (f"run dir {self.run_dir}, origin http={self.http_port} tls={self.tls_port} "
                f"tls-without-resumption={self.tls_full_handshake_port}")

    def prepare(self, large_file=True):
        """The run directory and the origin's files; without `large_file`, no 100 MiB file (for a run that
        does not tunnel it)."""
        for sub in ("www", "nginx", "logs"):
            os.makedirs(os.path.join(self.run_dir, sub), exist_ok=True)
        with open(os.path.join(self.run_dir, "www", SMALL_FILE), "wb") as small:
            small.write(b"x" * SMALL_FILE_BYTES)
        if large_file:
            self.add_random_file(LARGE_FILE, LARGE_FILE_BYTES)
        self.write("hosts", HOSTS_TEXT)
        self.write("resolv.conf", RESOLV_TEXT)

    def add_random_file(self, name, size_bytes):
        """A file of `size_bytes` random bytes for the origin to serve: nothing on the way may shrink them."""
        with open(os.path.join(self.run_dir, "www", name), "wb") as output:
            for offset in range(0, size_bytes, LARGE_FILE_CHUNK_BYTES):
                output.write(os.urandom(min(LARGE_FILE_CHUNK_BYTES, size_bytes - offset)))

    def render(self, template, output, **extra):
        """Copies bench/config/`template` to the run dir, filling in @...@ placeholders."""
        values = dict(self.values, **extra)
        with open(os.path.join(self.bench_dir, "config", template)) as source:
            text = source.read()
        missing = sorted(set(PLACEHOLDER.findall(text)) - set(values))
        if missing:
            raise SystemExit(f"{template}: no value for {', '.join(missing)}")
        text = PLACEHOLDER.sub(lambda match: str(values[match.group(1)]), text)
        return self.write(output, text)

    def private_dir(self, name, user, group_user=None):
        """A directory the given user can write, for a server that drops privileges to it; with `group_user`,
        that user's primary group can write it too (and nobody else can)."""
        path = os.path.join(self.run_dir, name)
        os.makedirs(path, exist_ok=True)
        if os.geteuid() == 0:
            entry = pwd.getpwnam(user)
            group = pwd.getpwnam(group_user).pw_gid if group_user else entry.pw_gid
            shutil.chown(path, entry.pw_uid, group)
            if group_user:
                os.chmod(path, 0o770)
        return path

    def log(self, name):
        return os.path.join(self.run_dir, "logs", name)

    def origin(self):
        config = self.render("nginx.conf.in", "nginx/nginx.conf")
        return Daemon("nginx", ["nginx", "-p", os.path.join(self.run_dir, "nginx"), "-c", config,
                                "-e", os.path.join(self.run_dir, "nginx", "error.log")],
                      self.http_port, self.log("nginx.out"))

    def ipdirect(self, binary, variant="", upstream_max_idle_per_host=DEFAULT_UPSTREAM_MAX_IDLE_PER_HOST,
                 template="ipdirect.toml.in", wrapper=(), access_log="off", **values):
        """`variant` names a differently configured instance (its own config and log file); `access_log` is
        ipdirect's `access_log` key ("off", or a file to append one line per request to); `template` and
        `values` (placeholder -> value) give another configuration, such as the resolver figures' ones;
        `wrapper` is a command that runs the binary, such as valgrind and its options."""
        port = free_port()
        name = f"ipdirect-{variant}" if variant else "ipdirect"
        values.setdefault("ADMIN_LISTEN", "[]")
        values.setdefault("IPDIRECT_MAX_CONNECTIONS", 10_000)
        values.setdefault("IPDIRECT_HEADER_TIMEOUT", 10)
        config = self.ipdirect_config(name, template, IPDIRECT_PORT=port,
                                      UPSTREAM_MAX_IDLE_PER_HOST=upstream_max_idle_per_host, ACCESS_LOG=access_log,
                                      **values)
        return Daemon(name, [*wrapper, binary, "run", "--config", config], port, self.log(f"{name}.out"))

    def ipdirect_config(self, name, template, **values):
        """Writes ipdirect/`name`.toml from `template`; returns its path."""
        return self.render(template, f"ipdirect/{name}.toml", **values)

    def tinyproxy(self, variant="", nameserver=None):
        """`variant` names a differently configured instance; `nameserver` (an address, port 53) is the DNS
        server its private /etc/resolv.conf names instead of the dead loopback one."""
        port = free_port()
        self.private_dir("tinyproxy", TINYPROXY_USER)
        name = f"tinyproxy-{variant}" if variant else "tinyproxy"
        config = self.render("tinyproxy.conf.in", f"tinyproxy/{name}.conf", TINYPROXY_PORT=port)
        resolv_conf = (self.write(f"tinyproxy/{name}-resolv.conf", f"nameserver {nameserver}\n") if nameserver
                       else os.path.join(self.run_dir, "resolv.conf"))
        argv = self._with_private_hosts(["tinyproxy", "-d", "-c", config], resolv_conf)
        return Daemon(name, argv, port, self.log(f"{name}.out"))

    def squid(self, variant="", persistent_upstream_connections=True, nameserver=DEAD_NAMESERVER):
        """`variant` names a differently configured instance (its own config and log file); `nameserver` is
        the address of its DNS server (squid always asks port 53)."""
        port = free_port()
        self.private_dir("squid", SQUID_USER)
        name = f"squid-{variant}" if variant else "squid"
        config = self.render("squid.conf.in", f"squid/{name}.conf", SQUID_PORT=port, DNS_NAMESERVER=nameserver,
                             SERVER_PERSISTENT_CONNECTIONS="on" if persistent_upstream_connections else "off")
        return Daemon(name, ["squid", "-N", "-f", config], port, self.log(f"{name}.out"))

    def dante(self):
        """danted in the foreground (no -D), resolving bench.test from the run's hosts file like tinyproxy."""
        port = free_port()
        directory = self.private_dir("dante", DANTE_UNPRIVILEGED_USER, group_user=DANTE_PRIVILEGED_USER)
        config = self.render("danted.conf.in", "dante/danted.conf", DANTE_PORT=port)
        argv = self._with_private_hosts(["danted", "-f", config, "-p", os.path.join(directory, "danted.pid")])
        # danted keeps lock files in TMPDIR (danted(8)): here, rather than in the machine's /tmp.
        return Daemon("dante", argv, port, self.log("dante.out"), env=dict(os.environ, TMPDIR=directory))

    def _with_private_hosts(self, argv, resolv_conf=None):
        """`argv` run in a mount namespace of its own whose /etc/hosts is the run's hosts file and whose
        /etc/resolv.conf is `resolv_conf` (by default the run's one, naming a DNS server that is not there).
        unshare without --fork execs, and so does the shell, so the pid the Daemon holds is the server's own."""
        script = 'mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/resolv.conf && shift 2 && exec "$@"'
        return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "private-hosts",
                os.path.join(self.run_dir, "hosts"), resolv_conf or os.path.join(self.run_dir, "resolv.conf"),
                *argv]

    def write(self, relative, text):
        """Writes `text` to run-dir/`relative`, making its directories; returns its path."""
        path = os.path.join(self.run_dir, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as output:
            output.write(text)
        return path


class Target:
    """One column of the results: a way of reaching the origin's files, and the process whose cost counts."""

    def __init__(self, name, environment, make_daemon=None, origin=None):
        self.name = name
        self.environment = environment
        self.make_daemon = make_daemon
        self.origin = origin
        self.daemon = None
        # False for a SOCKS server: it gets none of the HTTP proxy figures (idle connections, wrk, CONNECT).
        self.speaks_http_proxy = name not in SOCKS_ONLY_TARGETS
        # Why it has no CONNECT tunnel figures, or None when it can tunnel.
        self.cannot_connect = CANNOT_CONNECT.get(name)

    def __str__(self):
        return f"{self.name} ({self.daemon or 'not started'})"

    @property
    def is_direct(self):
        return self.make_daemon is None

    @property
    def port(self):
        return self.daemon.port

    @property
    def request_target(self):
        """Origin-form for the origin itself, absolute-form for a proxy (RFC 9112 §3.2.1, §3.2.2)."""
        if self.is_direct:
            return f"/{SMALL_FILE}"
        return f"http://{self.host_header}/{SMALL_FILE}"

    @property
    def host_header(self):
        return f"{BENCH_HOST}:{self.environment.http_port}"

    def restart(self):
        """A fresh process, so a memory figure is not flattered by what an earlier test left allocated.
        For the direct baseline the process is the origin itself."""
        if self.is_direct:
            self.origin.stop()
            self.origin.start()
            self.daemon = self.origin
            return
        self.stop()
        self.daemon = self.make_daemon()
        self.daemon.start()

    def stop(self):
        if not self.is_direct and self.daemon:
            self.daemon.stop()

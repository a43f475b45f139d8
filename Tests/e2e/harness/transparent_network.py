"""Three network namespaces for transparent mode: a client routed through a gateway that runs ipdirect and the
nftables table `ipdirect nft-rules` prints, to origins in a third. Nothing leaves the namespaces.

    client 10.250.1.2 --veth-- 10.250.1.1 gateway 10.250.9.1 --veth-- 10.250.9.2 origins
                                (ipdirect, rules,                      203.0.113.3 "right" (what HTTPDNS says)
                                 the HTTPDNS stub on 127.0.0.1)        203.0.113.9 "wrong" (the hijacked address)

The client's own hosts file sends origin.test to the hijacked address; the stub answers the right one. nginx
serves both addresses on 80 and 443 (one certificate for origin.test, so a client verifies either), raw sinks
on RAW_PORT record the bytes they receive, and a banner server on BANNER_PORT speaks first. The same over
IPv6 for origin6.test: the links carry fd00:250:1::/64 and fd00:250:9::/64, the origins 2001:db8:113::3
("right6") and 2001:db8:113::9 ("wrong6").
"""

import os
import shutil
import socket
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from .certificates import OriginCertificates
from .httpdns_stubs import HttpdnsStub
from .ipdirect_proxy import ConfigAdditions, ipdirect_binary
from .namespaced_ipdirect import NamespacedIpdirect
from .network_namespace import NetworkNamespace
from .ports import free_port
from .processes import ManagedProcess
from .resolver_config import HttpdnsProvider, httpdns_sections

CLIENT_ADDRESS = "10.250.1.2"
GATEWAY_CLIENT_SIDE = "10.250.1.1"
GATEWAY_ORIGIN_SIDE = "10.250.9.1"
ORIGIN_LINK = "10.250.9.2"
RIGHT = "203.0.113.3"
HIJACKED = "203.0.113.9"
ORIGIN_NAME = "origin.test"
CLIENT_ADDRESS6 = "fd00:250:1::2"
GATEWAY_CLIENT_SIDE6 = "fd00:250:1::1"
GATEWAY_ORIGIN_SIDE6 = "fd00:250:9::1"
ORIGIN_LINK6 = "fd00:250:9::2"
RIGHT6 = "2001:db8:113::3"
HIJACKED6 = "2001:db8:113::9"
ORIGIN6_NAME = "origin6.test"
RAW_PORT = 4443
BANNER_PORT = 2525
BANNER = b"220 banner.test ESMTP\r\n"
NETNS_CONFIG_DIRECTORY = Path("/etc/netns")
# Short, so that the test of a server-speaks-first protocol waits little.
SNIFF_TIMEOUT_SECONDS = 0.5


def transparent_available() -> str | None:
    """Why these tests cannot run here, or None."""
    if os.geteuid() != 0:
        return "transparent mode needs root for network namespaces and nftables"
    for tool in ("ip", "nft", "nginx", "curl", "setpriv"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    return None


class NamespaceServer:
    """A TCP server on one address of a namespace, handling each connection in turn with `handle`."""

    def __init__(self, namespace: NetworkNamespace, address: str, port: int):
        with namespace.entered():
            self._listener = socket.create_server((address, port))
        self._listener.settimeout(0.2)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, name=f"{type(self).__name__}-{address}", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stopping.is_set():
            try:
                connection, _ = self._listener.accept()
            except socket.timeout:
                continue
            with connection:
                self.handle(connection)

    def handle(self, connection: socket.socket) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=2)
        self._listener.close()


class RawSink(NamespaceServer):
    """Keeps the bytes each connection sends."""

    def __init__(self, namespace: NetworkNamespace, address: str, port: int):
        self.received: list[bytes] = []
        super().__init__(namespace, address, port)

    def handle(self, connection: socket.socket) -> None:
        connection.settimeout(2)
        chunks = b""
        try:
            while chunk := connection.recv(65536):
                chunks += chunk
        except OSError:
            pass
        self.received.append(chunks)


class BannerServer(NamespaceServer):
    """Speaks first, as SMTP does, and then closes."""

    def handle(self, connection: socket.socket) -> None:
        connection.sendall(BANNER)


@dataclass
class TransparentNetwork:
    work_dir: Path
    certificates: OriginCertificates
    client: NetworkNamespace | None = None
    gateway: NetworkNamespace | None = None
    origins: NetworkNamespace | None = None
    links: list[str] = field(default_factory=list)
    nginx: ManagedProcess | None = None
    stub: HttpdnsStub | None = None
    servers: list = field(default_factory=list)
    raw_sinks: dict[str, RawSink] = field(default_factory=dict)
    ipdirect: NamespacedIpdirect | None = None
    transparent_port: int = 0
    dns_port: int = 0
    client_interface: str = ""
    shared_directory: Path | None = None

    def start(self, exempt_user: str = "root", mode: str = "override") -> "TransparentNetwork":
        try:
            self._make_namespaces()
            self._start_origins()
            self._start_stub()
            self.start_ipdirect(exempt_user=exempt_user, mode=mode)
            self.load_rules()
        except Exception:
            self.stop()
            raise
        return self

    # Namespaces and routes -------------------------------------------------------------------------------------
    def _make_namespaces(self) -> None:
        self.client = NetworkNamespace.create(addresses=(), prefix="ipdtc")
        self.gateway = NetworkNamespace.create(addresses=(), prefix="ipdtg")
        self.origins = NetworkNamespace.create(addresses=(RIGHT, HIJACKED, RIGHT6, HIJACKED6), prefix="ipdto")
        tag = f"{os.getpid() % 10000}{len(self.links)}"
        self.client_interface = f"tpg{tag}c"
        self._link(self.client, f"tpc{tag}", (CLIENT_ADDRESS, CLIENT_ADDRESS6), self.gateway, self.client_interface,
                   (GATEWAY_CLIENT_SIDE, GATEWAY_CLIENT_SIDE6), 24)
        self._link(self.origins, f"tpo{tag}", (ORIGIN_LINK, ORIGIN_LINK6), self.gateway, f"tpg{tag}o",
                   (GATEWAY_ORIGIN_SIDE, GATEWAY_ORIGIN_SIDE6), 30)
        self.client.run(["ip", "route", "add", "default", "via", GATEWAY_CLIENT_SIDE])
        self.client.run(["ip", "-6", "route", "add", "default", "via", GATEWAY_CLIENT_SIDE6])
        self.origins.run(["ip", "route", "add", "default", "via", GATEWAY_ORIGIN_SIDE])
        self.origins.run(["ip", "-6", "route", "add", "default", "via", GATEWAY_ORIGIN_SIDE6])
        self.gateway.run(["ip", "route", "add", "203.0.113.0/24", "via", ORIGIN_LINK])
        self.gateway.run(["ip", "-6", "route", "add", "2001:db8:113::/64", "via", ORIGIN_LINK6])
        self.gateway.run(["sysctl", "-q", "-w", "net.ipv4.ip_forward=1"])
        self.gateway.run(["sysctl", "-q", "-w", "net.ipv6.conf.all.forwarding=1"])
        self._hosts_file(self.client, f"127.0.0.1 localhost\n{HIJACKED} {ORIGIN_NAME}\n{HIJACKED6} {ORIGIN6_NAME}\n")
        self._hosts_file(self.gateway, f"127.0.0.1 localhost\n{HIJACKED} {ORIGIN_NAME}\n")

    def _link(self, first: NetworkNamespace, first_end: str, first_addresses: tuple[str, str], second: NetworkNamespace,
              second_end: str, second_addresses: tuple[str, str], prefix: int) -> None:
        """A veth pair with an IPv4 address (/`prefix`) and an IPv6 one (/64, no duplicate detection to wait
        for) on each end."""
        subprocess.run(["ip", "link", "add", first_end, "netns", first.name, "type", "veth", "peer", "name",
                        second_end, "netns", second.name], check=True, capture_output=True)
        self.links.append(first_end)
        for namespace, end, (v4, v6) in ((first, first_end, first_addresses), (second, second_end, second_addresses)):
            namespace.run(["ip", "addr", "add", f"{v4}/{prefix}", "dev", end])
            namespace.run(["ip", "-6", "addr", "add", f"{v6}/64", "dev", end, "nodad"])
            namespace.run(["ip", "link", "set", end, "up"])

    @staticmethod
    def _hosts_file(namespace: NetworkNamespace, text: str) -> None:
        directory = NETNS_CONFIG_DIRECTORY / namespace.name
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "hosts").write_text(text)

    # Origins and the HTTPDNS stub ------------------------------------------------------------------------------
    def _start_origins(self) -> None:
        prefix = self.work_dir / "nginx"
        for subdirectory in ("logs", "tmp"):
            (prefix / subdirectory).mkdir(parents=True, exist_ok=True)
        pair = self.certificates.issue(prefix, "origin", ORIGIN_NAME)
        pair6 = self.certificates.issue(prefix, "origin6", ORIGIN6_NAME)
        config = prefix / "nginx.conf"
        config.write_text(self._nginx_config(prefix, pair, pair6))
        self.nginx = ManagedProcess("nginx-origins", self.origins.command(
            ["nginx", "-p", str(prefix), "-c", str(config), "-e", str(prefix / "logs" / "error.log")]), prefix / "logs")
        self.nginx.start()
        with self.origins.entered():
            self.nginx.wait_for_port(RIGHT, 443)
            self.nginx.wait_for_port(HIJACKED, 80)
            self.nginx.wait_for_port(RIGHT6, 443)
        for address in (RIGHT, HIJACKED):
            self.raw_sinks[address] = RawSink(self.origins, address, RAW_PORT)
        self.servers.append(BannerServer(self.origins, HIJACKED, BANNER_PORT))

    @staticmethod
    def _nginx_config(prefix: Path, pair, pair6) -> str:
        def server(address: str, label: str, name: str = ORIGIN_NAME, certificate=pair) -> str:
            return f"""
    server {{ listen {address}:80; location / {{ return 200 "{label} host=$host\\n"; }} }}
    server {{
        listen {address}:443 ssl;
        server_name {name};
        ssl_certificate {certificate.chain};
        ssl_certificate_key {certificate.key};
        location / {{ return 200 "{label} sni=$ssl_server_name\\n"; }}
    }}"""
        temp = prefix / "tmp"
        return f"""
user root;
worker_processes 1;
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log info;
events {{ worker_connections 64; }}
http {{
    access_log {prefix}/logs/access.log;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    default_type text/plain;
{server(RIGHT, "right")}
{server(HIJACKED, "wrong")}
{server(f"[{RIGHT6}]", "right6", ORIGIN6_NAME, pair6)}
{server(f"[{HIJACKED6}]", "wrong6", ORIGIN6_NAME, pair6)}
}}
"""

    def _start_stub(self) -> None:
        with self.gateway.entered():
            self.stub = HttpdnsStub({})
        self.stub.start()
        self.stub.set_record(ORIGIN_NAME, a=(RIGHT,), ttl=60)
        self.stub.set_record(ORIGIN6_NAME, aaaa=(RIGHT6,), ttl=60)

    # ipdirect and its rules ------------------------------------------------------------------------------------
    def start_ipdirect(self, exempt_user: str, mode: str = "override") -> None:
        with self.gateway.entered():
            self.transparent_port = free_port("0.0.0.0")
            self.dns_port = free_port("0.0.0.0")
        provider = HttpdnsProvider("stub", "json", self.stub.url("json-google"), [self.stub.bootstrap])
        section = f"""
[dns]
listen = ["0.0.0.0:{self.dns_port}"]
[transparent]
listen = ["0.0.0.0:{self.transparent_port}", "[::]:{self.transparent_port}"]
ports = [80, 443, {RAW_PORT}, {BANNER_PORT}]
sniff_timeout = {SNIFF_TIMEOUT_SECONDS}
mode = "{mode}"
exempt_user = "{exempt_user}"
interfaces = ["{self.client_interface}"]
"""
        additions = ConfigAdditions(resolver_keys={"order": ["httpdns"]}, proxy_keys={"log_level": "info"},
                                    sections=section + httpdns_sections(provider), admin=True)
        self.ipdirect = NamespacedIpdirect(self.gateway, self.work_dir / "ipdirect", {}, self.certificates.ca_file,
                                           additions, connect_ports=[443, RAW_PORT, BANNER_PORT]).start()

    def rules_text(self) -> str:
        printed = subprocess.run([str(ipdirect_binary()), "nft-rules", "--config", str(self.ipdirect.config_path)],
                                 capture_output=True, text=True, check=True)
        return printed.stdout

    def load_rules(self) -> None:
        rules = self.work_dir / "rules.nft"
        rules.write_text(self.rules_text())
        self.gateway.run(["nft", "-f", str(rules)])

    def table_exists(self) -> bool:
        return self.gateway.run(["nft", "list", "table", "inet", "ipdirect"], check=False).returncode == 0

    # Clients ---------------------------------------------------------------------------------------------------
    def curl(self, url: str, namespace: NetworkNamespace | None = None, user: str | None = None,
             extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
        """curl with no proxy at all, trusting the test CA, as `user` when given."""
        argv = ["curl", "--silent", "--show-error", "--noproxy", "*", "--max-time", "10",
                "--cacert", str(self.readable_ca()), *extra, url]
        if user is not None:
            argv = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *argv]
        return (namespace or self.client).run(argv, check=False, timeout=20)

    def readable_ca(self) -> Path:
        """The test CA where a user other than root may read it (the test's own directory is root's alone)."""
        if self.shared_directory is None:
            self.shared_directory = Path(tempfile.mkdtemp(prefix="ipdirect-transparent-ca-"))
            os.chmod(self.shared_directory, 0o755)
            shutil.copy(self.certificates.ca_file, self.shared_directory / "ca.pem")
            os.chmod(self.shared_directory / "ca.pem", 0o644)
        return self.shared_directory / "ca.pem"

    # Teardown --------------------------------------------------------------------------------------------------
    def stop(self) -> None:
        if self.ipdirect is not None:
            self.ipdirect.stop()
        for server in [*self.servers, *self.raw_sinks.values()]:
            server.stop()
        if self.stub is not None:
            self.stub.stop()
        if self.nginx is not None:
            self.nginx.stop()
        if self.shared_directory is not None:
            shutil.rmtree(self.shared_directory, ignore_errors=True)
        for namespace in (self.client, self.gateway, self.origins):
            if namespace is not None:
                shutil.rmtree(NETNS_CONFIG_DIRECTORY / namespace.name, ignore_errors=True)
                namespace.delete()

"""Peer proxies from Debian (squid, tinyproxy) that run the same tests to prove the harness itself right.

Both get the test names through a hosts file of their own and a resolv.conf that points at loopback only, so
neither sends a query off the machine: squid through its `hosts_file`/`dns_nameservers`, tinyproxy (which has
no such options) inside a private mount namespace where those files are bind-mounted over /etc.
"""

import os
import shutil
import tempfile
from pathlib import Path

from .network import Network
from .ports import LOOPBACK
from .processes import ProcessFailedToStart, start_on_free_ports
from .proxy_under_test import ProxyUnderTest

# Loopback resolver for anything not in the hosts file; nothing listens there during tests.
LOOPBACK_RESOLV_CONF = "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n"
# File descriptors for 200 concurrent clients plus their upstream connections.
PEER_MAX_FILE_DESCRIPTORS = 4096


def _hosts_file_text(network: Network) -> str:
    lines = [f"{LOOPBACK} localhost"]
    for name, addresses in network.static_hosts.items():
        lines.extend(f"{address} {name}" for address in addresses)
    return "\n".join(lines) + "\n"


def _world_writable_dir(prefix: str) -> Path:
    # Squid drops privileges to its own user, which cannot enter pytest's private (0700) temp tree.
    directory = Path(tempfile.mkdtemp(prefix=prefix))
    directory.chmod(0o777)
    return directory


def _start_on_a_free_port(proxy: ProxyUnderTest, name: str, command, write_config):
    """Starts `command` on a fresh free port (`write_config` writes the config for `proxy.port`)."""
    def command_for(ports: list[int]) -> list[str]:
        proxy.port = ports[0]
        write_config()
        return command

    proxy.process, _ = start_on_free_ports(name, 1, proxy.work_dir, command_for)
    return proxy


class SquidProxy(ProxyUnderTest):
    kind = "squid"

    def __init__(self, work_dir: Path, network: Network):
        super().__init__(work_dir)
        self.network = network
        self.squid_dir = _world_writable_dir("ipdirect-e2e-squid-")

    def start(self) -> "SquidProxy":
        (self.squid_dir / "hosts").write_text(_hosts_file_text(self.network))
        config = self.squid_dir / "squid.conf"
        return _start_on_a_free_port(self, "squid", ["squid", "-N", "-d", "1", "-f", str(config)],
                                     lambda: config.write_text(self._config_text()))

    def stop(self) -> None:
        super().stop()
        shutil.rmtree(self.squid_dir, ignore_errors=True)

    def access_log_path(self) -> Path:
        return self.squid_dir / "access.log"

    def describe(self) -> str:
        cache_log = self.squid_dir / "cache.log"
        tail = cache_log.read_text(errors="replace")[-4000:] if cache_log.exists() else ""
        return f"{super().describe()}\n--- squid cache.log (tail):\n{tail}"

    def _config_text(self) -> str:
        directory = self.squid_dir
        connect_ports = " ".join(str(port) for port in self.network.connect_ports)
        return f"""
http_port {LOOPBACK}:{self.port}
pid_filename {directory}/squid.pid
cache_log {directory}/cache.log
access_log stdio:{directory}/access.log squid
cache_store_log none
coredump_dir {directory}
cache deny all
cache_mem 8 MB
hosts_file {directory}/hosts
dns_nameservers 127.0.0.1
pinger_enable off
shutdown_lifetime 0 seconds
visible_hostname ipdirect-e2e-squid
via off
forwarded_for transparent
max_filedescriptors {PEER_MAX_FILE_DESCRIPTORS}
acl test_clients src 127.0.0.0/8
acl test_connect_ports port {connect_ports}
acl CONNECT method CONNECT
http_access deny CONNECT !test_connect_ports
http_access allow test_clients
http_access deny all
"""


class TinyproxyProxy(ProxyUnderTest):
    kind = "tinyproxy"
    has_access_log = False  # its log names connections, not request statuses

    def __init__(self, work_dir: Path, network: Network):
        super().__init__(work_dir)
        self.network = network

    def start(self) -> "TinyproxyProxy":
        if shutil.which("unshare") is None:
            raise ProcessFailedToStart("tinyproxy needs unshare(1) to see the test hosts file")
        self.work_dir.mkdir(parents=True, exist_ok=True)
        hosts, resolv = self.work_dir / "hosts", self.work_dir / "resolv.conf"
        hosts.write_text(_hosts_file_text(self.network))
        resolv.write_text(LOOPBACK_RESOLV_CONF)
        config = self.work_dir / "tinyproxy.conf"
        # unshare and sh exec in place, so the child's pid is tinyproxy's own.
        script = (f'mount --bind "{hosts}" /etc/hosts && mount --bind "{resolv}" /etc/resolv.conf '
                  f'&& exec tinyproxy -d -c "{config}"')
        return _start_on_a_free_port(self, "tinyproxy", ["unshare", "--mount", "sh", "-c", script],
                                     lambda: config.write_text(self._config_text()))

    def access_log_path(self) -> Path:
        return self.work_dir / "tinyproxy.log"

    def _config_text(self) -> str:
        connect_ports = "\n".join(f"ConnectPort {port}" for port in self.network.connect_ports)
        user = "User root\nGroup root\n" if os.geteuid() == 0 else ""
        return f"""{user}Port {self.port}
Listen {LOOPBACK}
Timeout 60
MaxClients 1024
LogFile "{self.work_dir}/tinyproxy.log"
LogLevel Info
PidFile "{self.work_dir}/tinyproxy.pid"
Allow 127.0.0.1
DisableViaHeader Yes
{connect_ports}
"""

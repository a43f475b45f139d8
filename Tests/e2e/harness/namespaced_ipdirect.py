"""ipdirect run inside a test's network namespace (`ip netns exec`), on the shared test configuration with the
namespace's own names: `hosts` maps each name to its addresses, in the order the `[hosts]` table lists them.

Its listen and admin ports are picked free inside the namespace; readiness is checked from inside it too. The
`start_ipdirect_in` fixture (conftest.py) starts these and stops them after the test.
"""

import os
from dataclasses import replace
from pathlib import Path

from .ipdirect_proxy import ConfigAdditions, IpdirectProxy, ipdirect_binary, ipdirect_config_text
from .network import Network
from .network_namespace import NetworkNamespace
from .ports import LOOPBACK, free_ports
from .processes import ManagedProcess, ProcessFailedToStart

START_ATTEMPTS = 3
# Nothing answers DNS inside a namespace; a name the test did not list must fail, not leak out.
NO_NAMESERVER = f"{LOOPBACK}:53"


def namespace_network(hosts: dict[str, list[str]]) -> Network:
    """A `Network` whose only meaningful parts are the names; the shared origins' ports do not exist here."""
    return Network(nginx_http_port=0, nginx_https_port=0, upload_port=0, counting_port=0, closed_port=0,
                   blackhole_port=0, digest_port=0, dns_server=NO_NAMESERVER, static_hosts=dict(hosts))


class NamespacedIpdirect(IpdirectProxy):
    def __init__(self, namespace: NetworkNamespace, work_dir: Path, hosts: dict[str, list[str]], ca_file: Path,
                 additions: ConfigAdditions, connect_ports: list[int]):
        # CONNECT may reach the test's origins only; the shared network's port list means nothing in here.
        access_keys = {"connect_ports": connect_ports or [443], **additions.access_keys}
        super().__init__(work_dir, namespace_network(hosts), ca_file, replace(additions, access_keys=access_keys))
        self.namespace = namespace

    def start(self) -> "NamespacedIpdirect":
        binary = ipdirect_binary()
        if not binary.exists():
            raise ProcessFailedToStart(f"no ipdirect binary at {binary} (build it or set IPDIRECT_BIN)")
        self.work_dir.mkdir(parents=True, exist_ok=True)
        last_error = None
        for _ in range(START_ATTEMPTS):
            self._starts += 1
            with self.namespace.entered():
                self.port, admin_port = free_ports(2)
            self.admin_port = admin_port if self.additions.admin else None
            admin_listen = [f"{LOOPBACK}:{self.admin_port}"] if self.admin_port is not None else []
            self.config_path.write_text(ipdirect_config_text([f"{LOOPBACK}:{self.port}"], self.network,
                                                              self.ca_file, additions=self.additions,
                                                              admin_listen=admin_listen))
            environment = {**os.environ, **self.additions.environment}
            self.process = ManagedProcess(
                f"ipdirect-{self._starts}",
                self.namespace.command([str(binary), "run", "--config", str(self.config_path)]),
                self.work_dir, env=environment)
            self.process.start()
            try:
                with self.namespace.entered():
                    self.process.wait_for_port(LOOPBACK, self.port)
                    if self.admin_port is not None:
                        self.process.wait_for_port(LOOPBACK, self.admin_port)
                return self
            except ProcessFailedToStart as error:
                self.process.stop()
                last_error = error
        raise ProcessFailedToStart(f"ipdirect did not start in namespace {self.namespace.name} in "
                                   f"{START_ATTEMPTS} attempts:\n{last_error}\n"
                                   f"--- config {self.config_path}:\n{self.config_path.read_text()}")

"""ipdirect run with an /etc/resolv.conf of the test's own: in a mount namespace of its own (`unshare -m`) where
the test's file is bound over /etc/resolv.conf, so its `system` source reads that file and the machine's stays as
it is. Needs root."""

import subprocess
from pathlib import Path

from .ipdirect_proxy import ConfigAdditions, IpdirectProxy
from .network import Network

# `$1` is the file to bind; the rest is ipdirect's command, exec'd so the managed process is ipdirect itself.
BIND_AND_EXEC = 'mount --bind "$1" /etc/resolv.conf && shift && exec "$@"'


def mount_namespaces_available() -> bool:
    return subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0


class ResolvConfIpdirect(IpdirectProxy):
    def __init__(self, work_dir: Path, network: Network, ca_file: Path, additions: ConfigAdditions,
                 resolv_conf: Path):
        super().__init__(work_dir, network, ca_file, additions)
        self.resolv_conf = resolv_conf

    def command(self) -> list[str]:
        return ["unshare", "-m", "sh", "-c", BIND_AND_EXEC, "sh", str(self.resolv_conf), *super().command()]

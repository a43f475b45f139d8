"""A real OpenSSH server (Debian's openssh-server) of the test's own: its configuration, host key and the one
authorized client key are generated into the test's directory, it listens on 127.0.0.1 on a free port, and it
lets in only the user running the tests, by that key. A system sshd, if the package install left one, is never
used, whatever port it has.

Run as root, sshd needs its privilege separation directory `/run/sshd` (systemd's unit makes it, as
`RuntimeDirectory=`); it is made here, empty and root's, when missing.
"""

import getpass
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .ports import LOOPBACK
from .processes import ManagedProcess, start_on_free_ports

SSHD = Path("/usr/sbin/sshd")
PRIVILEGE_SEPARATION_DIRECTORY = Path("/run/sshd")
CLIENT_TOOLS = ("ssh", "ssh-keygen", "nc")
KEYGEN_SECONDS = 30
CONFIG_CHECK_SECONDS = 30


def unavailable_reason() -> str | None:
    """Why no sshd of the test's own can run here, or None when it can."""
    if not SSHD.exists():
        return f"{SSHD} is missing: Debian's openssh-server is not installed (scripts/test installs it)"
    missing = [tool for tool in CLIENT_TOOLS if shutil.which(tool) is None]
    if missing:
        return f"{', '.join(missing)} not installed (openssh-client, netcat-openbsd; scripts/test installs them)"
    return None


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ipdirect-e2e", "-f", str(path)],
                   check=True, capture_output=True, timeout=KEYGEN_SECONDS)


def _config_text(directory: Path, host_key: Path, authorized_keys: Path, user: str) -> str:
    return f"""# Written by the end-to-end tests for one test.
ListenAddress {LOOPBACK}
HostKey {host_key}
PidFile {directory / 'sshd.pid'}
AuthorizedKeysFile {authorized_keys}
AllowUsers {user}
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
# The files live in the test's temporary directory, whose modes sshd would otherwise judge.
StrictModes no
PrintMotd no
LogLevel VERBOSE
"""


@dataclass
class SshServer:
    directory: Path
    port: int
    user: str
    client_key: Path
    process: ManagedProcess

    @classmethod
    def start(cls, directory: Path) -> "SshServer":
        """Generates keys and configuration and starts sshd. Raises `SshdCannotRun` with sshd's own words when
        `sshd -t` refuses the configuration on this machine."""
        directory.mkdir(parents=True, exist_ok=True)
        host_key, client_key = directory / "host_key", directory / "client_key"
        _keygen(host_key)
        _keygen(client_key)
        authorized_keys = directory / "authorized_keys"
        authorized_keys.write_text(Path(f"{client_key}.pub").read_text())
        user = getpass.getuser()
        config = directory / "sshd_config"
        config.write_text(_config_text(directory, host_key, authorized_keys, user))
        if os.geteuid() == 0 and not PRIVILEGE_SEPARATION_DIRECTORY.exists():
            PRIVILEGE_SEPARATION_DIRECTORY.mkdir(mode=0o755)
        check = subprocess.run([str(SSHD), "-t", "-f", str(config), "-h", str(host_key)], capture_output=True,
                               text=True, timeout=CONFIG_CHECK_SECONDS)
        if check.returncode != 0:
            raise SshdCannotRun(f"sshd -t refuses to run here: {check.stderr.strip() or check.stdout.strip()}")

        def command_for(ports: list[int]) -> list[str]:
            return [str(SSHD), "-D", "-e", "-f", str(config), "-p", str(ports[0]), "-h", str(host_key)]

        process, (port,) = start_on_free_ports("sshd", 1, directory, command_for)
        return cls(directory, port, user, client_key, process)

    def stop(self) -> None:
        self.process.stop()

    def describe(self) -> str:
        return self.process.describe_output()


class SshdCannotRun(RuntimeError):
    pass

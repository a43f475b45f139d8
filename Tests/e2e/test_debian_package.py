"""The Debian package installed as a new user would install it: into a clean Debian 12 root made with
debootstrap from the package source apt-get uses here, with no Swift toolchain in it. `apt-get install` pulls
the runtime libraries; `ipdirect check` passes on the shipped configuration; the packaged binary serves a
proxied request and a CONNECT tunnel to a local origin (in a network namespace of the test's own, so nothing
leaves the machine); an upgrade keeps the user's edited configuration; a configuration `ipdirect check` rejects
is named by the postinst and the service is not started; `dpkg --purge` leaves nothing behind.

Needs root, debootstrap and the package: scripts/test builds it from the committed tree and names it in
IPDIRECT_DEB. The root is made once per run (a few minutes) under the test's temporary directory.
"""

import os
import re
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from harness.ports import LOOPBACK

DEB = os.environ.get("IPDIRECT_DEB")
SUITE = "bookworm"
# debootstrap downloads and unpacks some 100 packages; apt-get then adds ipdirect's libraries.
DEBOOTSTRAP_SECONDS = 900
APT_SECONDS = 600
COMMAND_SECONDS = 60
# The whole file: the root, then every step in it.
FILE_TIMEOUT_SECONDS = 1800
# The test's own configuration inside the root: loopback ports of the namespace, loopback origins allowed.
PROXY_PORT, ORIGIN_PORT = 18080, 18090
# Paths the purge must not leave behind (besides the whole-tree comparison).
PACKAGE_PATHS = ["etc/ipdirect", "usr/bin/ipdirect", "lib/systemd/system/ipdirect.service",
                 "lib/systemd/system/ipdirect.socket", "usr/lib/sysusers.d/ipdirect.conf", "usr/share/doc/ipdirect",
                 "usr/share/man/man8/ipdirect.8.gz", "usr/share/man/man5/ipdirect.toml.5.gz", "var/lib/ipdirect",
                 "etc/systemd/system/multi-user.target.wants/ipdirect.service"]
# What changes in a root whatever is installed: package managers' own state, logs, caches.
UNTRACKED = re.compile(r"^(proc|sys|dev|run|tmp|var/cache|var/lib/apt|var/lib/dpkg|var/log|var/lib/systemd)(/|$)")

pytestmark = [
    pytest.mark.timeout(FILE_TIMEOUT_SECONDS),
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root: debootstrap, chroot and a network namespace"),
    pytest.mark.skipif(not DEB, reason="no package to install: scripts/test builds one from the committed tree and "
                                       "names it in IPDIRECT_DEB"),
    pytest.mark.skipif(shutil.which("debootstrap") is None, reason="debootstrap is not installed"),
]


def apt_mirror() -> str:
    """The first Debian archive apt-get uses here (deb822 .sources or a one-line sources.list)."""
    for path in sorted(Path("/etc/apt/sources.list.d").glob("*.sources")):
        for match in re.finditer(r"^URIs:\s*(\S+)", path.read_text(), re.MULTILINE):
            if "security" not in match.group(1):
                return match.group(1)
    sources = Path("/etc/apt/sources.list")
    if sources.exists():
        for line in sources.read_text().splitlines():
            parts = line.split()
            if len(parts) > 2 and parts[0] == "deb" and "security" not in parts[1]:
                return parts[-3] if parts[1].startswith("[") else parts[1]
    pytest.skip("no Debian archive in apt's sources to debootstrap from")


def run(command: list[str], timeout: float = COMMAND_SECONDS, check: bool = True, **options) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **options)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


class Root:
    """A Debian 12 root with /proc mounted and this machine's resolv.conf (for apt-get)."""

    def __init__(self, path: Path):
        self.path = path

    def run(self, script: str, timeout: float = COMMAND_SECONDS, check: bool = True) -> subprocess.CompletedProcess:
        return run(["chroot", str(self.path), "/bin/sh", "-c", script], timeout=timeout, check=check,
                   env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C"})

    def files(self) -> set[str]:
        """Every path in the root but the package managers' state, logs, caches and /tmp."""
        found = set()
        for directory, subdirectories, names in os.walk(self.path):
            relative = os.path.relpath(directory, self.path)
            if relative != "." and UNTRACKED.match(relative):
                subdirectories[:] = []
                continue
            for name in names + subdirectories:
                path = name if relative == "." else f"{relative}/{name}"
                if not UNTRACKED.match(path):
                    found.add(path)
        return found

    def users(self) -> set[str]:
        return {line.split(":")[0] for line in (self.path / "etc/passwd").read_text().splitlines()}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    path = tmp_path_factory.mktemp("debian-root") / SUITE
    run(["debootstrap", "--variant=minbase", SUITE, str(path), apt_mirror()], timeout=DEBOOTSTRAP_SECONDS)
    shutil.copy("/etc/resolv.conf", path / "etc/resolv.conf")
    run(["mount", "-t", "proc", "proc", str(path / "proc")])
    try:
        shutil.copy(DEB, path / "tmp" / Path(DEB).name)
        yield Root(path)
    finally:
        run(["umount", "-l", str(path / "proc")], check=False)


@pytest.fixture(scope="module")
def installed(root):
    """The package installed with apt-get, as its users install it; what the root held before, for the purge."""
    assert root.run("command -v swift", check=False).returncode != 0, "the clean root has a Swift toolchain"
    before = root.files()
    users_before = root.users()
    installed = root.run(f"apt-get update -q && apt-get install -y -q /tmp/{Path(DEB).name}", timeout=APT_SECONDS)
    return before, users_before, installed.stdout


def package_version() -> str:
    return run(["dpkg-deb", "--field", DEB, "Version"]).stdout.strip()


def test_apt_pulls_the_runtime_libraries_and_no_swift(root, installed):
    depends = run(["dpkg-deb", "--field", DEB, "Depends"]).stdout
    assert "libevent-core-2.1-7" in depends and "libssl3" in depends and "swift" not in depends.lower(), depends
    for library in ["libevent-core-2.1-7", "libssl3", "libc-ares2", "libnghttp2-14"]:
        assert root.run(f"dpkg-query -W -f '${{Status}}' {library}").stdout == "install ok installed", library
    assert not list(root.path.glob("usr/lib/**/libswiftCore.so")), "a Swift runtime library came with the package"
    assert root.run("ldd /usr/bin/ipdirect").stdout.count("not found") == 0


def test_the_binary_prints_the_packages_version_and_checks_the_shipped_configuration(root, installed):
    assert root.run("ipdirect --version").stdout.strip() == package_version()
    checked = root.run("ipdirect check --config /etc/ipdirect/ipdirect.toml")
    assert "configuration ok" in checked.stdout + checked.stderr
    assert (root.path / "usr/lib/sysusers.d/ipdirect.conf").exists()
    assert (root.path / "etc/systemd/system/multi-user.target.wants/ipdirect.service").is_symlink()
    assert "ipdirect" in root.users()
    assert root.run("man -w ipdirect.toml 2>/dev/null || ls /usr/share/man/man5/ipdirect.toml.5.gz").returncode == 0


ORIGIN = f"""
import http.server
class Answer(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"from the local origin\\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *arguments):
        pass
http.server.HTTPServer(("{LOOPBACK}", {ORIGIN_PORT}), Answer).serve_forever()
"""

TEST_CONFIG = f"""[proxy]
listen = "{LOOPBACK}:{PROXY_PORT}"
[resolver]
order = ["hosts"]
[access]
allow_private_upstreams = true
connect_ports = [{ORIGIN_PORT}]
[admin]
listen = []
"""


def test_the_packaged_binary_serves_a_request_and_a_connect_tunnel(root, installed):
    namespace = f"ipdpkg-{uuid.uuid4().hex[:8]}"
    (root.path / "tmp/test.toml").write_text(TEST_CONFIG)
    run(["ip", "netns", "add", namespace])
    processes = []
    try:
        run(["ip", "netns", "exec", namespace, "ip", "link", "set", "lo", "up"])
        processes.append(subprocess.Popen(["ip", "netns", "exec", namespace, "python3", "-c", ORIGIN]))
        processes.append(subprocess.Popen(["ip", "netns", "exec", namespace, "chroot", str(root.path),
                                           "/usr/bin/ipdirect", "run", "--config", "/tmp/test.toml"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
        proxy = f"http://{LOOPBACK}:{PROXY_PORT}"
        origin = f"http://{LOOPBACK}:{ORIGIN_PORT}/"
        deadline = time.monotonic() + COMMAND_SECONDS
        while True:
            fetched = run(["ip", "netns", "exec", namespace, "curl", "-sSf", "-m", "5", "-x", proxy, origin], check=False)
            if fetched.returncode == 0 or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        assert fetched.stdout == "from the local origin\n", fetched.stderr
        tunnelled = run(["ip", "netns", "exec", namespace, "curl", "-sS", "-m", "5", "-p", "-x", proxy, origin])
        assert tunnelled.stdout == "from the local origin\n"
    finally:
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        run(["ip", "netns", "del", namespace], check=False)


def upgraded_package(tmp_path: Path) -> Path:
    """The same package as version VERSION+1, as the next release would come."""
    unpacked = tmp_path / "unpacked"
    run(["dpkg-deb", "--raw-extract", DEB, str(unpacked)])
    control = unpacked / "DEBIAN/control"
    control.write_text(re.sub(r"^Version: (.*)$", r"Version: \1+1", control.read_text(), flags=re.MULTILINE))
    upgrade = tmp_path / "ipdirect_upgrade_amd64.deb"
    run(["dpkg-deb", "--root-owner-group", "--build", str(unpacked), str(upgrade)])
    return upgrade


def test_an_upgrade_keeps_the_users_edits_and_a_rejected_configuration_is_never_started(root, installed, tmp_path):
    shutil.copy(upgraded_package(tmp_path), root.path / "tmp/upgrade.deb")
    config = root.path / "etc/ipdirect/ipdirect.toml"
    config.write_text(config.read_text() + "\n# kept across upgrades\n")
    root.run("dpkg -i /tmp/upgrade.deb")
    assert config.read_text().endswith("# kept across upgrades\n")
    assert root.run("dpkg-query -W -f '${Version}' ipdirect").stdout == package_version() + "+1"

    # As on a machine that runs systemd: the postinst would start the service through deb-systemd-invoke,
    # which here records what it was asked instead.
    invoke = root.path / "usr/bin/deb-systemd-invoke"
    original = invoke.read_bytes()
    (root.path / "run/systemd/system").mkdir(parents=True, exist_ok=True)
    invoke.write_text("#!/bin/sh\necho \"$@\" >> /tmp/invoked\n")
    try:
        good = config.read_text()
        config.write_text(good + "\n[proxy]\nworkers = -1\n")
        rejected = root.run("dpkg -i /tmp/upgrade.deb")
        assert "does not check, so ipdirect.service is left stopped" in rejected.stderr, rejected.stderr
        # The old package's prerm stops the service for the upgrade; nothing starts it again.
        assert invoked(root) == ["stop ipdirect.service"]
        config.write_text(good)
        root.run("dpkg -i /tmp/upgrade.deb")
        assert invoked(root) == ["stop ipdirect.service", "stop ipdirect.service", "restart ipdirect.service"]
    finally:
        invoke.write_bytes(original)
        shutil.rmtree(root.path / "run/systemd", ignore_errors=True)
        (root.path / "tmp/invoked").unlink(missing_ok=True)


def invoked(root) -> list[str]:
    record = root.path / "tmp/invoked"
    return record.read_text().splitlines() if record.exists() else []


def test_purge_leaves_nothing_the_package_made(root, installed):
    before, users_before, _ = installed
    root.run("dpkg --purge ipdirect")
    left = [path for path in PACKAGE_PATHS if (root.path / path).exists() or (root.path / path).is_symlink()]
    assert left == []
    assert "ipdirect" not in root.users() or "ipdirect" in users_before
    # Everything else that appeared came with the libraries apt-get pulled in, which stay installed.
    ours = sorted(path for path in root.files() - before if "ipdirect" in path)
    assert ours == [], ours

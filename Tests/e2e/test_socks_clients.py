"""Real, unmodified SOCKS clients through the one ipdirect port that also serves HTTP: curl (SOCKS5 with remote
names, SOCKS5 and SOCKS4 to IP literals, SOCKS4a), Python requests over PySocks, git cloning a dumb HTTP
repository, headless Chromium and an SSH session through netcat.

Every name a client asks for is published at an HTTPDNS provider (the json stub) and nowhere else: ipdirect
resolves through hosts and HTTPDNS only, the system resolver knows none of these `.test` names, and each test
checks the access-log line's `source=` names the provider and that the provider was asked. TLS to an HTTPS
origin is the client's own, end to end through the tunnel: the client checks the origin's certificate for the
name against the test CA.
"""

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from harness import chromium
from harness.ipdirect_proxy import IpdirectProxy
from harness.ipv6_origin import ANSWER_PREFIX, IPV6_LOOPBACK
from harness.nginx_origin import STATIC_PAGE_TEXT
from harness.ports import LOOPBACK
from harness.provider_setups import ProviderSetup
from harness.resolution_checks import start_resolving
from harness.ssh_server import SshdCannotRun, SshServer, unavailable_reason
from harness.static_origin import StaticOrigin

PROVIDER = "json-google"
WEB_NAME = "web.socks.test"      # nginx's plain origin
TLS_NAME = "tls.socks.test"      # an HTTPS origin whose certificate names it
GIT_NAME = "git.socks.test"
BROWSER_NAME = "browser.socks.test"
SSH_NAME = "ssh.test"
TLS_PAGE = "served over TLS to tls.socks.test\n"
# Generous bounds for one client run on a loaded 2-core machine.
CLIENT_SECONDS = 30
GIT_SECONDS = 60
SSH_SECONDS = 60
# Client environments carry no proxy settings of the machine: each test names the proxy itself.
CLEAN_ENVIRONMENT = {key: value for key, value in os.environ.items() if "proxy" not in key.lower()}


@pytest.fixture
def httpdns(provider_setup) -> ProviderSetup:
    return provider_setup(PROVIDER)


@pytest.fixture(scope="module")
def tls_origin(tmp_path_factory, certificates):
    root = tmp_path_factory.mktemp("tls-origin")
    (root / "index.html").write_text(TLS_PAGE)
    certificate = certificates.issue(tmp_path_factory.mktemp("tls-origin-certificate"), "tls-socks", TLS_NAME)
    origin = StaticOrigin(root, certificate).start()
    yield origin
    origin.stop()


@dataclass(frozen=True)
class Page:
    """A page a client fetches through the proxy by a name only HTTPDNS knows, and what it says."""
    name: str
    port: int
    url: str
    text: str


@pytest.fixture(params=["http", "https"])
def page(request, network) -> Page:
    """nginx's static page in clear, or the TLS origin's page, whose TLS the client speaks itself, end to end
    through the tunnel, checking the certificate for the name against the test CA."""
    if request.param == "http":
        return Page(WEB_NAME, network.nginx_http_port, network.plain_url("/static/page.html", WEB_NAME),
                    STATIC_PAGE_TEXT)
    origin = request.getfixturevalue("tls_origin")
    return Page(TLS_NAME, origin.port, origin.url(TLS_NAME, "/index.html"), TLS_PAGE)


def socks_proxy(start_ipdirect, httpdns: ProviderSetup, names: list[str], ports: list[int]) -> IpdirectProxy:
    """An ipdirect of the test's own that resolves `names` (published to loopback now) through the provider
    only and lets tunnels reach `ports` only."""
    for name in names:
        httpdns.set_addresses(name, a=(LOOPBACK,))
    return start_resolving(start_ipdirect, httpdns, access_keys={"connect_ports": sorted(set(ports))})


def assert_resolved_by_httpdns(proxy: IpdirectProxy, httpdns: ProviderSetup, method: str, name: str,
                               port: int) -> str:
    """The tunnel's access-log line names the provider as the source, and the provider was asked once."""
    line = proxy.wait_for_access_log(f" method={method} ", f" target={name}:{port} ", f" source={PROVIDER} ",
                                     " status=200 ")
    assert httpdns.queries(name, "A") == 1, line
    return line


def curl(*arguments: str) -> tuple[int, str]:
    """curl's status code and body; fails the test when curl fails."""
    assert shutil.which("curl"), "curl is not installed"
    completed = subprocess.run(
        ["curl", "--silent", "--show-error", "--max-time", str(CLIENT_SECONDS), "--write-out", "\n%{http_code}",
         *arguments], capture_output=True, text=True, timeout=CLIENT_SECONDS + 10, env=CLEAN_ENVIRONMENT)
    assert completed.returncode == 0, f"curl {' '.join(arguments)}: exit {completed.returncode}\n{completed.stderr}"
    body, _, status = completed.stdout.rpartition("\n")
    return int(status), body


# curl ------------------------------------------------------------------------------------------------------
def test_curl_socks5_hostname_fetches_by_a_name_only_httpdns_knows(start_ipdirect, httpdns, certificates, page):
    proxy = socks_proxy(start_ipdirect, httpdns, [page.name], [page.port])
    status, body = curl("--socks5-hostname", f"{LOOPBACK}:{proxy.port}", "--cacert", str(certificates.ca_file),
                        page.url)
    assert (status, body) == (200, page.text)
    assert_resolved_by_httpdns(proxy, httpdns, "SOCKS5", page.name, page.port)


@pytest.mark.parametrize("option, method, family", [("--socks5", "SOCKS5", 4), ("--socks4", "SOCKS4", 4),
                                                    ("--socks5", "SOCKS5", 6)],
                         ids=["socks5-ipv4", "socks4-ipv4", "socks5-ipv6"])
def test_curl_socks_to_an_ip_literal_makes_ipdirect_resolve_nothing(request, start_ipdirect, httpdns, network,
                                                                    option, method, family):
    if family == 4:
        authority, page = network.plain_authority(LOOPBACK), STATIC_PAGE_TEXT
        url = network.plain_url("/static/page.html", LOOPBACK)
    else:
        # SOCKS5's IPv6 address type, to the origin that listens on ::1 only.
        origin = request.getfixturevalue("ipv6_origin")
        authority = f"[{IPV6_LOOPBACK}]:{origin.port}"
        url, page = f"http://{authority}/", f"{ANSWER_PREFIX} host={authority} client={IPV6_LOOPBACK}\n"
    proxy = socks_proxy(start_ipdirect, httpdns, [], [int(authority.rpartition(":")[2])])
    status, body = curl(option, f"{LOOPBACK}:{proxy.port}", url)
    assert (status, body) == (200, page)
    proxy.wait_for_access_log(f" method={method} ", f" target={authority} ", " source=literal ", " status=200 ")
    assert httpdns.stub.count() == 0


def test_curl_socks4a_sends_the_name_for_ipdirect_to_resolve(start_ipdirect, httpdns, network):
    proxy = socks_proxy(start_ipdirect, httpdns, [WEB_NAME], [network.nginx_http_port])
    status, body = curl("--socks4a", f"{LOOPBACK}:{proxy.port}", network.plain_url("/static/page.html", WEB_NAME))
    assert (status, body) == (200, STATIC_PAGE_TEXT)
    assert_resolved_by_httpdns(proxy, httpdns, "SOCKS4", WEB_NAME, network.nginx_http_port)


# Python requests over PySocks --------------------------------------------------------------------------------
def test_python_requests_with_socks5h_fetches_by_a_name_only_httpdns_knows(start_ipdirect, httpdns, certificates,
                                                                          page):
    proxy = socks_proxy(start_ipdirect, httpdns, [page.name], [page.port])
    socks_url = f"socks5h://{LOOPBACK}:{proxy.port}"
    # The tunnel's log line is written when the tunnel ends, and urllib3 keeps a SOCKS connection open in its
    # pool even past Session.close(): the origin is asked to close it instead.
    with requests.Session() as session:
        session.trust_env = False
        response = session.get(page.url, proxies={"http": socks_url, "https": socks_url},
                               headers={"Connection": "close"}, verify=str(certificates.ca_file),
                               timeout=CLIENT_SECONDS)
    assert (response.status_code, response.text) == (200, page.text)
    assert_resolved_by_httpdns(proxy, httpdns, "SOCKS5", page.name, page.port)


# git over dumb HTTP ------------------------------------------------------------------------------------------
def git(*arguments: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    completed = subprocess.run(["git", *arguments], capture_output=True, text=True, timeout=GIT_SECONDS, cwd=cwd,
                               env=env)
    assert completed.returncode == 0, f"git {' '.join(arguments)}: exit {completed.returncode}\n{completed.stderr}"
    return completed.stdout


def git_environment(home: Path, **extra: str) -> dict[str, str]:
    """No user or system configuration, no prompts; `extra` on top."""
    home.mkdir(parents=True, exist_ok=True)
    return {**CLEAN_ENVIRONMENT, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
            "GIT_AUTHOR_NAME": "e2e", "GIT_AUTHOR_EMAIL": "e2e@example.test", "GIT_COMMITTER_NAME": "e2e",
            "GIT_COMMITTER_EMAIL": "e2e@example.test", **extra}


@pytest.fixture
def dumb_git_origin(tmp_path):
    """A bare repository with one commit, readied for dumb HTTP (`git update-server-info`) and served as
    static files; yields the origin and the commit id."""
    if shutil.which("git") is None:
        pytest.fail("git is not installed")
    environment = git_environment(tmp_path / "author-home")
    work = tmp_path / "work"
    git("init", "-q", "-b", "main", str(work), env=environment)
    (work / "README").write_text("cloned through SOCKS5\n")
    git("add", "README", cwd=work, env=environment)
    git("commit", "-q", "-m", "The one commit", cwd=work, env=environment)
    commit = git("rev-parse", "HEAD", cwd=work, env=environment).strip()
    served = tmp_path / "served"
    git("clone", "-q", "--bare", str(work), str(served / "repo.git"), env=environment)
    git("update-server-info", cwd=served / "repo.git", env=environment)
    origin = StaticOrigin(served).start()
    yield origin, commit
    origin.stop()


def test_git_clones_a_dumb_http_repository_through_all_proxy_socks5h(start_ipdirect, httpdns, dumb_git_origin,
                                                                    tmp_path):
    origin, commit = dumb_git_origin
    proxy = socks_proxy(start_ipdirect, httpdns, [GIT_NAME], [origin.port])
    # ALL_PROXY alone: git hands it to libcurl, with socks5h meaning the proxy resolves the name.
    environment = git_environment(tmp_path / "cloner-home", ALL_PROXY=f"socks5h://{LOOPBACK}:{proxy.port}")
    clone = tmp_path / "clone"
    git("clone", "-q", origin.url(GIT_NAME, "/repo.git"), str(clone), env=environment)
    assert git("rev-parse", "HEAD", cwd=clone, env=environment).strip() == commit
    assert (clone / "README").read_text() == "cloned through SOCKS5\n"
    # The smart protocol was asked for first, then the dumb files were fetched.
    assert "/repo.git/info/refs?service=git-upload-pack" in origin.paths, origin.paths
    assert any(path.startswith("/repo.git/objects/") for path in origin.paths), origin.paths
    assert_resolved_by_httpdns(proxy, httpdns, "SOCKS5", GIT_NAME, origin.port)


# Chromium --------------------------------------------------------------------------------------------------
def test_headless_chromium_with_a_socks5_proxy_loads_a_page_by_a_name_only_httpdns_knows(start_ipdirect, httpdns,
                                                                                        network, tmp_path):
    browser = chromium.chromium_binary()
    if browser is None:
        pytest.skip(chromium.NOT_INSTALLED)
    proxy = socks_proxy(start_ipdirect, httpdns, [BROWSER_NAME], [network.nginx_http_port])
    # Chromium sends names to a SOCKS5 proxy; its own resolver is told to find nothing.
    completed = chromium.dump_dom(browser, f"--proxy-server=socks5://{LOOPBACK}:{proxy.port}",
                                  network.plain_url("/static/page.html", BROWSER_NAME), tmp_path)
    assert STATIC_PAGE_TEXT.splitlines()[0] in completed.stdout, chromium.describe(completed)
    assert_resolved_by_httpdns(proxy, httpdns, "SOCKS5", BROWSER_NAME, network.nginx_http_port)


# SSH through netcat ------------------------------------------------------------------------------------------
@pytest.fixture
def ssh_server(tmp_path):
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    try:
        server = SshServer.start(tmp_path / "sshd")
    except SshdCannotRun as error:
        pytest.skip(str(error))
    yield server
    server.stop()


def test_ssh_session_through_netcat_socks5_by_a_name_only_httpdns_knows(start_ipdirect, httpdns, ssh_server,
                                                                       tmp_path):
    proxy = socks_proxy(start_ipdirect, httpdns, [SSH_NAME], [ssh_server.port])
    command = [
        "ssh", "-F", "/dev/null",
        "-o", f"ProxyCommand=nc -X 5 -x {LOOPBACK}:{proxy.port} %h %p",
        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes",
        "-o", "IdentitiesOnly=yes", "-o", f"ConnectTimeout={SSH_SECONDS // 2}", "-o", "LogLevel=ERROR",
        "-i", str(ssh_server.client_key), "-p", str(ssh_server.port), f"{ssh_server.user}@{SSH_NAME}",
        "echo", "hello",
    ]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=SSH_SECONDS,
                               env={**CLEAN_ENVIRONMENT, "HOME": str(tmp_path)})
    assert (completed.returncode, completed.stdout) == (0, "hello\n"), \
        f"ssh: exit {completed.returncode}\n{completed.stderr}\n{ssh_server.describe()}"
    assert_resolved_by_httpdns(proxy, httpdns, "SOCKS5", SSH_NAME, ssh_server.port)

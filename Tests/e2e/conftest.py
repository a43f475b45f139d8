"""Fixtures for the end-to-end tests: real origins on loopback and the proxy under test in front of them.

E2E_PROXY picks the proxy under test: `ipdirect` (default), or a peer proxy from Debian (`squid`,
`tinyproxy`) that runs the tests marked `@pytest.mark.peers(...)` with its name, to prove the harness right.
"""

from pathlib import Path

import pytest
import requests

from harness.blackhole_listener import BlackholeListener
from harness.body_echo_origin import BodyEchoOrigin
from harness.certificates import CertificatePair, OriginCertificates, make_test_certificates
from harness.counting_origin import CountingOrigin
from harness.digest_origin import DigestOrigin
from harness.dns_server import DnsServer, start_dns_server
from harness.dnsdist_doh import DnsdistDoh
from harness.doh_certificates import issue_doh_certificate
from harness.httpdns_stubs import TENCENT_TOKEN, HttpdnsStub
from harness.ipdirect_proxy import ConfigAdditions, IpdirectProxy, ipdirect_binary
from harness.identity_origins import IdentityOrigins
from harness.ipv6_origin import Ipv6Origin
from harness.namespaced_ipdirect import NamespacedIpdirect
from harness.network_namespace import NetworkNamespace, namespaces_available
from harness.network import Network, static_hosts_table
from harness.nginx_origin import NginxOrigin, start_nginx_origin
from harness.peer_proxies import SquidProxy, TinyproxyProxy
from harness.ports import free_port, ipv6_loopback_available
from harness.processes import ProcessFailedToStart
from harness.provider_setups import ProviderSetup, doh_setup, stub_setup
from harness.proxy_under_test import ProxyUnderTest, selected_proxy_kind
from harness.resolver_records import HTTPDNS_STUB_RECORDS, UNBOUND_RECORDS
from harness.unbound_doh import UnboundDoh
from harness.upload_origin import UploadOrigin
from harness.websocket_echo import WebSocketEcho

PROXY_KINDS = {"ipdirect": IpdirectProxy, "squid": SquidProxy, "tinyproxy": TinyproxyProxy}
PROXY_KIND = selected_proxy_kind()


def pytest_configure(config):
    if PROXY_KIND not in PROXY_KINDS:
        raise pytest.UsageError(f"E2E_PROXY={PROXY_KIND!r}; expected one of {sorted(PROXY_KINDS)}")


def pytest_report_header(config):
    if PROXY_KIND == "ipdirect":
        return f"proxy under test: ipdirect ({ipdirect_binary()})"
    return f"proxy under test: {PROXY_KIND} (peer proxy validating the harness)"


def pytest_collection_modifyitems(config, items):
    if PROXY_KIND == "ipdirect":
        return
    for item in items:
        if item.get_closest_marker("harness"):
            continue
        peers_marker = item.get_closest_marker("peers")
        if peers_marker is None or PROXY_KIND not in peers_marker.args:
            item.add_marker(pytest.mark.skip(reason=f"checks ipdirect's own behaviour; {PROXY_KIND} differs"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    funcargs = getattr(item, "funcargs", {})
    proxy = funcargs.get("proxy")
    if report.failed and isinstance(proxy, ProxyUnderTest):
        report.sections.append((f"{proxy.kind} output", proxy.describe()))
    for fixture_name in ("start_ipdirect", "start_ipdirect_in"):
        own_proxies = funcargs.get(fixture_name)
        if report.failed and isinstance(own_proxies, (OwnIpdirects, NamespacedIpdirects)):
            for index, own in enumerate(own_proxies.started):
                report.sections.append((f"ipdirect of this test #{index} output", own.describe()))


# Origins ----------------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def certificates(tmp_path_factory) -> OriginCertificates:
    return make_test_certificates(tmp_path_factory.mktemp("certificates"))


@pytest.fixture(scope="session")
def upload_origin():
    origin = UploadOrigin().start()
    yield origin
    origin.stop()


@pytest.fixture(scope="session")
def websocket_echo():
    echo = WebSocketEcho().start()
    yield echo
    echo.stop()


@pytest.fixture(scope="session")
def nginx_origin(tmp_path_factory, certificates, upload_origin, websocket_echo) -> NginxOrigin:
    origin = start_nginx_origin(tmp_path_factory.mktemp("nginx"), certificates, upload_origin.port,
                                websocket_echo.port)
    yield origin
    origin.stop()


@pytest.fixture(scope="session")
def counting_origin_server():
    origin = CountingOrigin().start()
    yield origin
    origin.stop()


@pytest.fixture(scope="session")
def digest_origin():
    origin = DigestOrigin().start()
    yield origin
    origin.stop()


@pytest.fixture(scope="session")
def body_echo_origin():
    origin = BodyEchoOrigin().start()
    yield origin
    origin.stop()


@pytest.fixture
def counting_origin(counting_origin_server) -> CountingOrigin:
    """The counting origin with its counts cleared for this test."""
    counting_origin_server.reset()
    return counting_origin_server


@pytest.fixture(scope="session")
def blackhole_listener():
    listener = BlackholeListener().start()
    yield listener
    listener.stop()


@pytest.fixture(scope="session")
def ipv6_origin():
    """An HTTP origin on [::1] only; tests that need it are skipped on a machine without IPv6 loopback."""
    if not ipv6_loopback_available():
        pytest.skip("this machine has no ::1 to listen on")
    origin = Ipv6Origin().start()
    yield origin
    origin.stop()


@pytest.fixture(scope="session")
def dns_server(tmp_path_factory) -> DnsServer:
    server = start_dns_server(tmp_path_factory.mktemp("dnsmasq"))
    yield server
    server.stop()


# Resolvers: real RFC 8484 servers and HTTPDNS stubs on loopback ---------------------------------------------
@pytest.fixture(scope="session")
def doh_certificate(tmp_path_factory, certificates):
    """The certificate of doh.test, dnsdist.test, httpdns.test and 127.0.0.1, from the test CA."""
    return issue_doh_certificate(certificates, tmp_path_factory.mktemp("doh-certificate"))


@pytest.fixture(scope="session")
def unbound_doh_server(tmp_path_factory, doh_certificate) -> UnboundDoh:
    server = UnboundDoh.start(tmp_path_factory.mktemp("unbound"), doh_certificate, UNBOUND_RECORDS)
    yield server
    server.stop()


@pytest.fixture
def unbound_doh(unbound_doh_server) -> UnboundDoh:
    """unbound's DoH endpoint (HTTP/2 only) with the records of resolver_records and counts cleared; records
    a test changes are put back afterwards."""
    if not unbound_doh_server.is_running():
        pytest.fail(f"unbound is not running:\n{unbound_doh_server.describe()}", pytrace=False)
    unbound_doh_server.reset_counts()
    yield unbound_doh_server
    unbound_doh_server.reset()


@pytest.fixture(scope="session")
def dnsdist_doh_server(tmp_path_factory, doh_certificate, unbound_doh_server) -> DnsdistDoh:
    server = DnsdistDoh.start(tmp_path_factory.mktemp("dnsdist"), doh_certificate, unbound_doh_server)
    yield server
    server.stop()


@pytest.fixture
def dnsdist_doh(dnsdist_doh_server, unbound_doh) -> DnsdistDoh:
    """dnsdist's DoH endpoint (HTTP/1.1 and HTTP/2) in front of `unbound_doh`, which counts its queries."""
    if not dnsdist_doh_server.is_running():
        pytest.fail(f"dnsdist is not running:\n{dnsdist_doh_server.describe()}", pytrace=False)
    return dnsdist_doh_server


@pytest.fixture(scope="session")
def httpdns_stub_server():
    stub = HttpdnsStub(HTTPDNS_STUB_RECORDS).start()
    yield stub
    stub.stop()


@pytest.fixture
def httpdns_stub(httpdns_stub_server) -> HttpdnsStub:
    """The plain-HTTP json/aliyun/tencent stub, its records, modes and counts reset for this test."""
    httpdns_stub_server.reset()
    yield httpdns_stub_server
    httpdns_stub_server.reset()


@pytest.fixture(scope="session")
def httpdns_tls_stub_server(doh_certificate):
    stub = HttpdnsStub(HTTPDNS_STUB_RECORDS, certificate=doh_certificate, tencent_token=TENCENT_TOKEN).start()
    yield stub
    stub.stop()


@pytest.fixture
def httpdns_tls_stub(httpdns_tls_stub_server) -> HttpdnsStub:
    """The same stub over TLS as httpdns.test, requiring the tencent token; reset for this test."""
    httpdns_tls_stub_server.reset()
    yield httpdns_tls_stub_server
    httpdns_tls_stub_server.reset()


@pytest.fixture
def provider_setup(request, tmp_path, certificates):
    """`provider_setup(kind)`: one HTTPDNS provider of a kind in `provider_setups.PROVIDER_KINDS`, backed by its
    real server (that server's fixture, reset for this test, is taken on demand)."""
    def make(kind: str) -> ProviderSetup:
        if kind.startswith(("unbound", "dnsdist")):
            dnsdist = request.getfixturevalue("dnsdist_doh") if kind.startswith("dnsdist") else None
            return doh_setup(kind, request.getfixturevalue("unbound_doh"), dnsdist, certificates.ca_file)
        tls_stub = request.getfixturevalue("httpdns_tls_stub") if kind == "tencent-token" else None
        return stub_setup(kind, request.getfixturevalue("httpdns_stub"), tls_stub, tmp_path / "secrets",
                          certificates.ca_file)
    return make


@pytest.fixture(scope="session")
def network(nginx_origin, upload_origin, counting_origin_server, blackhole_listener, dns_server,
            digest_origin) -> Network:
    return Network(
        nginx_http_port=nginx_origin.http_port,
        nginx_https_port=nginx_origin.https_port,
        upload_port=upload_origin.port,
        counting_port=counting_origin_server.port,
        closed_port=free_port(),
        blackhole_port=blackhole_listener.port,
        digest_port=digest_origin.port,
        dns_server=dns_server.address,
        static_hosts=static_hosts_table(),
    )


# The proxy under test ---------------------------------------------------------------------------------------
class ProxyRunner:
    """Keeps one proxy for the whole run; restarts it if a test killed it, but never retries a failed start."""

    def __init__(self, factory):
        self._factory = factory
        self.proxy: ProxyUnderTest | None = None
        self._start_error: Exception | None = None

    def running_proxy(self) -> ProxyUnderTest:
        if self._start_error is not None:
            summary = " ".join(str(self._start_error).splitlines()[:2])
            pytest.fail(f"{PROXY_KIND} failed to start earlier in this run ({summary}); "
                        f"the first test that needed it shows the whole output", pytrace=False)
        if self.proxy is None or not self.proxy.is_running():
            if self.proxy is not None:
                self.proxy.stop()
            try:
                self.proxy = self._factory().start()
            except ProcessFailedToStart as error:
                self._start_error = error
                pytest.fail(f"{PROXY_KIND} failed to start:\n{error}", pytrace=False)
        return self.proxy

    def stop(self) -> None:
        if self.proxy is not None:
            self.proxy.stop()


@pytest.fixture(scope="session")
def proxy_runner(tmp_path_factory, network, certificates):
    work_dir = tmp_path_factory.mktemp(PROXY_KIND)
    if PROXY_KIND == "ipdirect":
        runner = ProxyRunner(lambda: IpdirectProxy(work_dir, network, certificates.ca_file))
    else:
        runner = ProxyRunner(lambda: PROXY_KINDS[PROXY_KIND](work_dir, network))
    yield runner
    runner.stop()


@pytest.fixture
def proxy(proxy_runner) -> ProxyUnderTest:
    """The running proxy, its logs marked at the start of this test; the test fails if the proxy dies."""
    proxy = proxy_runner.running_proxy()
    proxy.mark_logs()
    yield proxy
    if not proxy.is_running():
        pytest.fail(f"{proxy.kind} exited during the test:\n{proxy.describe()}", pytrace=False)


class OwnIpdirects:
    """Starts ipdirect instances of one test's own, each on the shared configuration plus that test's keys."""

    def __init__(self, work_dir: Path, network: Network, ca_file: Path):
        self._work_dir = work_dir
        self._network = network
        self._ca_file = ca_file
        self.started: list[IpdirectProxy] = []
        self._requested = 0

    def __call__(self, additions: ConfigAdditions) -> IpdirectProxy:
        self._requested += 1
        own = IpdirectProxy(self._work_dir / f"ipdirect-{self._requested}", self._network, self._ca_file,
                            additions)
        try:
            own.start()
        except ProcessFailedToStart as error:
            pytest.fail(f"ipdirect with this test's configuration failed to start:\n{error}", pytrace=False)
        self.started.append(own)
        own.mark_logs()
        return own

    def stop_all(self) -> None:
        for own in self.started:
            own.stop()


@pytest.fixture
def start_ipdirect(tmp_path, network, certificates):
    """`start_ipdirect(ConfigAdditions(...))` runs a separate ipdirect for this test only (the shared `proxy`
    is left as it is); every instance is stopped after the test, which fails if one died during it."""
    own_proxies = OwnIpdirects(tmp_path, network, certificates.ca_file)
    yield own_proxies
    died = [own for own in own_proxies.started if not own.is_running()]
    own_proxies.stop_all()
    if died:
        pytest.fail("ipdirect exited during the test:\n" + "\n".join(own.describe() for own in died),
                    pytrace=False)


@pytest.fixture
def http(proxy):
    """A requests session that sends everything through the proxy and ignores proxy settings from the env."""
    session = requests.Session()
    session.trust_env = False
    session.proxies = proxy.proxies
    yield session
    session.close()


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


# A private network per test: a network namespace with documentation addresses on its loopback ----------------
@pytest.fixture
def netns() -> NetworkNamespace:
    """A network namespace of this test only (192.0.2.1-3 on its `lo`), deleted afterwards."""
    if not namespaces_available():
        pytest.skip("network namespaces need root and iproute2")
    namespace = NetworkNamespace.create()
    yield namespace
    namespace.delete()


@pytest.fixture
def namespace_origins(netns):
    """`namespace_origins({address: delay_seconds}, certificate=None)`: identity origins on those addresses of
    `netns`, one port, over TLS with a certificate."""
    started: list[IdentityOrigins] = []

    def start(delays: dict[str, float], certificate: CertificatePair | None = None) -> IdentityOrigins:
        origins = IdentityOrigins(netns, delays, certificate)
        started.append(origins)
        return origins
    yield start
    for origins in started:
        origins.stop()


@pytest.fixture
def namespace_httpdns_stub(netns) -> HttpdnsStub:
    """The plain-HTTP json/aliyun/tencent stub, listening on 127.0.0.1 inside `netns`, without records."""
    with netns.entered():
        stub = HttpdnsStub({})
    stub.start()
    yield stub
    stub.stop()


class NamespacedIpdirects:
    """Starts ipdirect instances of one test inside its namespace, each with its own names and keys."""

    def __init__(self, namespace: NetworkNamespace, work_dir: Path, ca_file: Path):
        self._namespace = namespace
        self._work_dir = work_dir
        self._ca_file = ca_file
        self.started: list[NamespacedIpdirect] = []

    def __call__(self, hosts: dict[str, list[str]], additions: ConfigAdditions,
                 connect_ports: tuple[int, ...] = ()) -> NamespacedIpdirect:
        own = NamespacedIpdirect(self._namespace, self._work_dir / f"ipdirect-ns-{len(self.started) + 1}", hosts,
                                 self._ca_file, additions, list(connect_ports))
        try:
            own.start()
        except ProcessFailedToStart as error:
            pytest.fail(f"ipdirect with this test's configuration failed to start in {self._namespace.name}:\n"
                        f"{error}", pytrace=False)
        self.started.append(own)
        own.mark_logs()
        return own

    def stop_all(self) -> None:
        for own in self.started:
            own.stop()


@pytest.fixture
def start_ipdirect_in(netns, tmp_path, certificates):
    """`start_ipdirect_in(hosts, ConfigAdditions(...), connect_ports)` runs an ipdirect inside `netns`, `hosts`
    being its [hosts] table; stopped after the test, which fails if one died during it."""
    own_proxies = NamespacedIpdirects(netns, tmp_path, certificates.ca_file)
    yield own_proxies
    died = [own for own in own_proxies.started if not own.is_running()]
    own_proxies.stop_all()
    if died:
        pytest.fail("ipdirect exited during the test:\n" + "\n".join(own.describe() for own in died),
                    pytrace=False)

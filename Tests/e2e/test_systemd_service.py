"""ipdirect as a systemd service: state notifications (sd_notify), socket activation, graceful drain on
SIGTERM, and unit files that systemd-analyze accepts. The tests play systemd's part themselves."""

import signal
import socket
import subprocess
import threading
import time

import pytest
import requests

from harness.dns_listener import dig
from harness.ipdirect_proxy import ConfigAdditions, IpdirectProxy, ipdirect_binary, ipdirect_config_text
from harness.notify_socket import NotifySocket
from harness.paced_origin import PacedOrigin
from harness.ports import LOOPBACK, free_port
from harness.processes import ManagedProcess

# How long ipdirect gets to exit after SIGTERM when nothing is in flight.
EXIT_SECONDS = 10
# systemd's watchdog interval given to ipdirect; it must ping at half of it.
WATCHDOG_USEC = 200_000
WATCHDOG_OBSERVED_SECONDS = 1.5
# The drain download: large and slow enough to be in the middle of it when SIGTERM comes.
DRAIN_DOWNLOAD_BYTES = 64 * 1024 * 1024
DRAIN_DOWNLOAD_SECONDS = 5.0
DRAIN_TIMEOUT_SECONDS = 30
# Bytes of the download received before SIGTERM is sent.
DRAIN_SIGNAL_AFTER_BYTES = 4 * 1024 * 1024
READ_BYTES = 256 * 1024
SOCKET_ACTIVATION_SECONDS = 20

@pytest.fixture
def service_ipdirect(tmp_path, network, certificates):
    """`service_ipdirect(additions)`: an ipdirect of this test that the test may stop itself."""
    started: list[IpdirectProxy] = []

    def start(additions: ConfigAdditions) -> IpdirectProxy:
        own = IpdirectProxy(tmp_path / f"ipdirect-{len(started) + 1}", network, certificates.ca_file, additions)
        started.append(own)
        return own.start()

    yield start
    for own in started:
        own.stop()


@pytest.fixture
def notify_socket(tmp_path):
    listener = NotifySocket(tmp_path / "notify")
    yield listener
    listener.close()


def through(proxy: IpdirectProxy) -> requests.Session:
    session = requests.Session()
    session.trust_env = False
    session.proxies = proxy.proxies
    return session


def exit_code_after(proxy: IpdirectProxy, signum: int, seconds: float = EXIT_SECONDS) -> int:
    proxy.process.popen.send_signal(signum)
    return proxy.process.popen.wait(timeout=seconds)


def connection_refused(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(1)
        return probe.connect_ex((LOOPBACK, port)) != 0


# sd_notify ------------------------------------------------------------------------------------------------
def test_ready_once_listening_then_stopping_on_sigterm(service_ipdirect, notify_socket, network):
    proxy = service_ipdirect(ConfigAdditions(environment={"NOTIFY_SOCKET": notify_socket.environment_value}))
    ready = notify_socket.wait_for("READY")
    assert f"{LOOPBACK}:{proxy.port}" in notify_socket.states()[ready].get("STATUS", "")
    assert through(proxy).get(network.plain_url(), timeout=10).status_code == 200
    assert notify_socket.count("STOPPING") == 0, "STOPPING=1 before any stop signal"

    assert exit_code_after(proxy, signal.SIGTERM) == 0
    stopping = notify_socket.wait_for("STOPPING", after=ready + 1)
    assert stopping > ready
    assert "event=stopped" in proxy.process.stderr_text()


def test_abstract_notify_socket_and_watchdog_pings(service_ipdirect):
    listener = NotifySocket()  # abstract: NOTIFY_SOCKET=@name
    try:
        proxy = service_ipdirect(ConfigAdditions(environment={
            "NOTIFY_SOCKET": listener.environment_value, "WATCHDOG_USEC": str(WATCHDOG_USEC)}))
        listener.wait_for("READY")
        listener.collect_for(WATCHDOG_OBSERVED_SECONDS)
        pings = listener.count("WATCHDOG")
        # Every half interval (0.1 s): about 15 in 1.5 s; at least half of that on a busy machine.
        expected = WATCHDOG_OBSERVED_SECONDS / (WATCHDOG_USEC / 2 / 1e6)
        assert pings >= expected / 2, f"{pings} WATCHDOG=1 pings in {WATCHDOG_OBSERVED_SECONDS}s"
        assert pings <= expected * 2 + 2, f"{pings} pings: not paced at half of WATCHDOG_USEC"
        assert exit_code_after(proxy, signal.SIGINT) == 0
        listener.wait_for("STOPPING")
    finally:
        listener.close()


def test_watchdog_meant_for_another_process_is_not_pinged(service_ipdirect, notify_socket):
    proxy = service_ipdirect(ConfigAdditions(environment={
        "NOTIFY_SOCKET": notify_socket.environment_value, "WATCHDOG_USEC": str(WATCHDOG_USEC), "WATCHDOG_PID": "1"}))
    notify_socket.wait_for("READY")
    notify_socket.collect_for(WATCHDOG_OBSERVED_SECONDS / 2)
    assert notify_socket.count("WATCHDOG") == 0
    assert proxy.is_running()


# Socket activation --------------------------------------------------------------------------------------------
def test_socket_activation_serves_on_the_handed_socket(tmp_path, network, certificates):
    handed_port, configured_port = free_port(), free_port()
    config = tmp_path / "ipdirect.toml"
    config.write_text(ipdirect_config_text([f"{LOOPBACK}:{configured_port}"], network, certificates.ca_file))
    activator = ManagedProcess("socket-activate", [
        "systemd-socket-activate", "-l", f"{LOOPBACK}:{handed_port}", "--fdname=proxy",
        str(ipdirect_binary()), "run", "--config", str(config)], tmp_path)
    activator.start()
    try:
        activator.wait_for_port(LOOPBACK, handed_port)
        session = requests.Session()
        session.trust_env = False
        session.proxies = {"http": f"http://{LOOPBACK}:{handed_port}"}
        # The first connection makes systemd-socket-activate exec ipdirect, which accepts it from the socket.
        response = session.get(network.plain_url("/echo"), timeout=SOCKET_ACTIVATION_SECONDS)
        assert response.status_code == 200 and "host=origin.test" in response.text
        log = activator.stderr_text()
        assert f"event=socket_activation fds=1 listen={LOOPBACK}:{handed_port}(proxy)" in log, log
        assert f"event=listen_overridden config_listen={LOOPBACK}:{configured_port}" in log, log
        assert connection_refused(configured_port), "ipdirect bound [proxy] listen although it was handed a socket"
        activator.popen.send_signal(signal.SIGTERM)
        assert activator.popen.wait(timeout=EXIT_SECONDS) == 0
    finally:
        activator.stop()


def test_socket_activation_hands_the_dns_listener_its_udp_socket_by_name(tmp_path, network, certificates):
    """systemd-socket-activate hands one kind of socket per run: a datagram socket named `dns`, as
    ipdirect-dns.socket's ListenDatagram= does; the proxy binds its own [proxy] listen."""
    handed_port, proxy_port = free_port(), free_port()
    config = tmp_path / "ipdirect.toml"
    config.write_text(ipdirect_config_text([f"{LOOPBACK}:{proxy_port}"], network, certificates.ca_file))
    activator = ManagedProcess("socket-activate-dns", [
        "systemd-socket-activate", "--datagram", "-l", f"{LOOPBACK}:{handed_port}", "--fdname=dns",
        str(ipdirect_binary()), "run", "--config", str(config)], tmp_path)
    activator.start()
    try:
        # The first datagram makes systemd-socket-activate exec ipdirect, which reads it from the socket.
        deadline = time.monotonic() + SOCKET_ACTIVATION_SECONDS
        answer = dig(handed_port, "localhost")
        while answer.addresses != ["127.0.0.1"] and time.monotonic() < deadline:
            time.sleep(0.2)
            answer = dig(handed_port, "localhost")
        assert answer.addresses == ["127.0.0.1"], answer.text + activator.stderr_text()
        log = activator.stderr_text()
        assert f"event=socket_activation name=dns udp={LOOPBACK}:{handed_port}" in log, log
        activator.popen.send_signal(signal.SIGTERM)
        assert activator.popen.wait(timeout=EXIT_SECONDS) == 0
    finally:
        activator.stop()


# Drain -------------------------------------------------------------------------------------------------------
def test_sigterm_drains_a_slow_tunnel_download_refuses_new_connections_and_writes_the_cache(
        service_ipdirect, notify_socket, network, tmp_path):
    origin = PacedOrigin(DRAIN_DOWNLOAD_BYTES, DRAIN_DOWNLOAD_SECONDS).start()
    cache_file = tmp_path / "resolver.cache"
    try:
        proxy = service_ipdirect(ConfigAdditions(
            proxy_keys={"drain_timeout": DRAIN_TIMEOUT_SECONDS},
            resolver_keys={"cache_file": str(cache_file)},
            access_keys={"connect_ports": network.connect_ports + [origin.port]},
            environment={"NOTIFY_SOCKET": notify_socket.environment_value}))
        # dns.test is answered by the system resolver (dnsmasq), so it lands in the cache.
        idle = through(proxy)
        assert idle.get(network.plain_url(name="dns.test"), timeout=10).status_code == 200

        received = 0
        started = threading.Event()
        failure: list[BaseException] = []

        def download() -> None:
            nonlocal received
            try:
                with socket.create_connection(proxy.address, timeout=30) as tunnel:
                    tunnel.sendall(f"CONNECT {LOOPBACK}:{origin.port} HTTP/1.1\r\nHost: {LOOPBACK}:{origin.port}\r\n\r\n".encode())
                    head = b""
                    while b"\r\n\r\n" not in head:
                        head += tunnel.recv(1)
                    assert head.startswith(b"HTTP/1.1 200"), head
                    while True:
                        data = tunnel.recv(READ_BYTES)
                        if not data:
                            return
                        received += len(data)
                        if received >= DRAIN_SIGNAL_AFTER_BYTES:
                            started.set()
            except BaseException as error:  # reported by the test thread
                failure.append(error)
                started.set()

        downloader = threading.Thread(target=download)
        downloader.start()
        assert started.wait(timeout=30) and not failure, failure
        proxy.process.popen.send_signal(signal.SIGTERM)
        notify_socket.wait_for("STOPPING")

        deadline = time.monotonic() + 5
        while not connection_refused(proxy.port):
            assert time.monotonic() < deadline, "new connections are still accepted after SIGTERM"
            time.sleep(0.05)
        assert downloader.is_alive() and received < DRAIN_DOWNLOAD_BYTES, \
            "the download ended before the listener closed; the test proves nothing"
        # The idle keep-alive connection was closed by the drain, not left open until the deadline.
        with pytest.raises(requests.ConnectionError):
            idle.get(network.plain_url(name="dns.test"), timeout=10)

        downloader.join(timeout=DRAIN_TIMEOUT_SECONDS)
        assert not failure, failure
        assert received == DRAIN_DOWNLOAD_BYTES
        assert proxy.process.popen.wait(timeout=EXIT_SECONDS) == 0
        log = proxy.process.stderr_text()
        assert "event=drained" in log and "event=drain_incomplete" not in log, log[-3000:]
        assert cache_file.exists() and "dns.test" in cache_file.read_text()
    finally:
        origin.stop()


def test_drain_timeout_cuts_what_is_still_open(service_ipdirect, network):
    origin = PacedOrigin(DRAIN_DOWNLOAD_BYTES, DRAIN_DOWNLOAD_SECONDS * 4).start()
    try:
        proxy = service_ipdirect(ConfigAdditions(
            proxy_keys={"drain_timeout": 1},
            access_keys={"connect_ports": network.connect_ports + [origin.port]}))
        with socket.create_connection(proxy.address, timeout=30) as tunnel:
            tunnel.sendall(f"CONNECT {LOOPBACK}:{origin.port} HTTP/1.1\r\nHost: {LOOPBACK}:{origin.port}\r\n\r\n".encode())
            assert tunnel.recv(READ_BYTES).startswith(b"HTTP/1.1 200")
            started = time.monotonic()
            assert exit_code_after(proxy, signal.SIGTERM) == 0
            assert time.monotonic() - started < EXIT_SECONDS
            assert "event=drain_incomplete" in proxy.process.stderr_text()
    finally:
        origin.stop()


# Reload ------------------------------------------------------------------------------------------------------
RELOADS = 10
LOAD_CLIENTS = 4
# Each client's load is bounded; it stops early once the reloads are done and a tail has run after them.
LOAD_MAX_REQUESTS_PER_CLIENT = 5000
LOAD_REQUESTS_AFTER_RELOADS = 50
# One request in this many goes on a new connection, so connections are accepted during the reloads too.
NEW_CONNECTION_EVERY = 5
RELOAD_PAUSE_SECONDS = 0.05


def with_host_entry(config_text: str, name: str) -> str:
    return config_text.replace("[hosts]\n", f'[hosts]\n"{name}" = ["{LOOPBACK}"]\n', 1)


def sighup_and_wait(proxy: IpdirectProxy, notify_socket: NotifySocket) -> None:
    mark = len(notify_socket.messages)
    proxy.process.popen.send_signal(signal.SIGHUP)
    reloading = notify_socket.wait_for("RELOADING", after=mark)
    assert int(notify_socket.states()[reloading]["MONOTONIC_USEC"]) > 0
    notify_socket.wait_for("READY", after=reloading + 1)


def test_sighup_reloads_ten_times_under_load_without_a_failed_request(service_ipdirect, notify_socket, network):
    proxy = service_ipdirect(ConfigAdditions(environment={"NOTIFY_SOCKET": notify_socket.environment_value}))
    notify_socket.wait_for("READY")
    original = proxy.config_path.read_text()
    reloads_done = threading.Event()
    failures: list[str] = []
    counts = [0] * LOAD_CLIENTS
    hit_bound = []

    def load(client: int) -> None:
        session, after = through(proxy), 0
        for number in range(LOAD_MAX_REQUESTS_PER_CLIENT):
            if number % NEW_CONNECTION_EVERY == 0:
                session.close()
                session = through(proxy)
            try:
                response = session.get(network.plain_url("/echo"), timeout=10)
                if response.status_code != 200:
                    failures.append(f"client {client} request {number}: {response.status_code} {response.text[:200]}")
            except requests.RequestException as error:
                failures.append(f"client {client} request {number}: {error}")
            counts[client] += 1
            if reloads_done.is_set():
                after += 1
                if after >= LOAD_REQUESTS_AFTER_RELOADS:
                    return
        hit_bound.append(client)

    clients = [threading.Thread(target=load, args=(client,)) for client in range(LOAD_CLIENTS)]
    for thread in clients:
        thread.start()
    try:
        for reload in range(RELOADS):
            proxy.config_path.write_text(with_host_entry(original, f"reload-{reload}.test"))
            sighup_and_wait(proxy, notify_socket)
            time.sleep(RELOAD_PAUSE_SECONDS)
    finally:
        reloads_done.set()
        for thread in clients:
            thread.join(timeout=120)
    assert not failures, f"{len(failures)} failed of {sum(counts)}: {failures[:5]}"
    assert not hit_bound, "the load ended before the reloads did; they were not tested under load"
    assert notify_socket.count("RELOADING") == RELOADS
    log = proxy.process.stderr_text()
    assert log.count("event=reloaded") == RELOADS, log[-3000:]

    session = through(proxy)
    # The newest configuration is in force: its host entry resolves, the one of the first reload is gone.
    assert session.get(network.plain_url(name=f"reload-{RELOADS - 1}.test"), timeout=10).status_code == 200
    assert session.get(network.plain_url(name="reload-0.test"), timeout=10).status_code == 502


def test_bad_configuration_on_sighup_is_rejected_and_the_running_one_kept(service_ipdirect, notify_socket, network):
    proxy = service_ipdirect(ConfigAdditions(environment={"NOTIFY_SOCKET": notify_socket.environment_value}))
    notify_socket.wait_for("READY")
    original = proxy.config_path.read_text()
    proxy.config_path.write_text(with_host_entry(original, "kept.test"))
    sighup_and_wait(proxy, notify_socket)

    proxy.config_path.write_text(with_host_entry(original, "never.test").replace("[access]\n", "[access]\nallow_privat = 1\n"))
    sighup_and_wait(proxy, notify_socket)
    log = proxy.process.stderr_text()
    assert "event=reload_rejected" in log and "unknown key 'allow_privat' in [access]" in log, log[-3000:]
    session = through(proxy)
    assert session.get(network.plain_url(name="kept.test"), timeout=10).status_code == 200
    assert session.get(network.plain_url(name="never.test"), timeout=10).status_code == 502

    # A new listen address needs a restart: the old listener keeps serving, the new port is not bound.
    other_port = free_port()
    proxy.config_path.write_text(with_host_entry(original, "kept.test").replace(
        f"{LOOPBACK}:{proxy.port}", f"{LOOPBACK}:{other_port}"))
    sighup_and_wait(proxy, notify_socket)
    assert "event=reload_needs_restart key=proxy.listen" in proxy.process.stderr_text()
    assert through(proxy).get(network.plain_url(name="kept.test"), timeout=10).status_code == 200
    assert connection_refused(other_port)


# Unit files --------------------------------------------------------------------------------------------------
def test_unit_files_pass_systemd_analyze_verify(tmp_path, repo_root):
    """verify insists that ExecStart's binary exists, so it checks copies naming the binary under test."""
    units = ("ipdirect.service", "ipdirect.socket", "ipdirect-dns.socket", "ipdirect-transparent.service")
    for unit in units:
        text = (repo_root / "systemd" / unit).read_text()
        (tmp_path / unit).write_text(text.replace("/usr/local/bin/ipdirect", str(ipdirect_binary())))
    result = subprocess.run(["systemd-analyze", "verify", *(str(tmp_path / unit) for unit in units)],
                            capture_output=True, text=True, timeout=60)
    # Unknown or misspelt keys are only warnings to verify: any output at all fails the test.
    assert result.returncode == 0 and result.stdout == "" and result.stderr == "", result.stdout + result.stderr
    service = (repo_root / "systemd" / "ipdirect.service").read_text()
    for line in ("Type=notify", "ExecStartPre=/usr/local/bin/ipdirect check", "ExecReload=/usr/local/bin/ipdirect check",
                 "ExecReload=/bin/kill -HUP $MAINPID", "WatchdogSec=", "DynamicUser=yes", "NoNewPrivileges=yes",
                 "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "PrivateDevices=yes",
                 "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX", "\nCapabilityBoundingSet=\n",
                 "StateDirectory=ipdirect", "LimitNOFILE="):
        assert line in service, f"ipdirect.service lacks {line.strip()}"
    transparent = (repo_root / "systemd" / "ipdirect-transparent.service").read_text()
    # The rules live exactly as long as the daemon: bound to it, and deleted when it stops.
    for line in ("BindsTo=ipdirect.service", "PartOf=ipdirect.service", "RemainAfterExit=yes",
                 "ExecStop=/usr/sbin/nft delete table inet ipdirect", "ReloadPropagatedFrom=ipdirect.service",
                 "ExecStart=/usr/sbin/nft -f /run/ipdirect-transparent/rules.nft",
                 "ExecReload=/usr/sbin/nft -f /run/ipdirect-transparent/rules.nft"):
        assert line in transparent, f"ipdirect-transparent.service lacks {line}"


def test_the_static_user_drop_in_names_the_user_sysusers_makes_and_the_rules_exempt(repo_root):
    sysusers = (repo_root / "systemd" / "ipdirect.sysusers").read_text()
    drop_in = (repo_root / "systemd" / "ipdirect-static-user.conf").read_text()
    made = [line.split()[1] for line in sysusers.splitlines() if line.startswith("u ")]
    assert made == ["ipdirect"]
    assert "DynamicUser=no" in drop_in and "User=ipdirect" in drop_in
    assert 'exempt_user = "ipdirect"' in (repo_root / "config" / "ipdirect.toml").read_text()


def test_sighup_applies_resolver_changes_and_keeps_the_cache(service_ipdirect, notify_socket, network, httpdns_stub):
    """A reload takes new [resolver] settings (here: the provider is renamed and min_ttl raised) for new
    lookups, while answers cached before it are still served from the cache without a new query."""
    from harness.resolver_config import HttpdnsProvider, httpdns_sections

    cached_name, new_name = "before.reload.test", "after.reload.test"
    for name in (cached_name, new_name):
        httpdns_stub.set_record(name, a=[LOOPBACK], ttl=300)
    provider = HttpdnsProvider(name="first", format="json", url=httpdns_stub.url("json-google"))
    proxy = service_ipdirect(ConfigAdditions(
        proxy_keys={"upstream_max_idle_per_host": 0},
        resolver_keys={"order": ["hosts", "httpdns"]},
        sections=httpdns_sections(provider),
        environment={"NOTIFY_SOCKET": notify_socket.environment_value}))
    notify_socket.wait_for("READY")

    def get(name: str) -> None:
        response = through(proxy).get(network.plain_url("/echo", name), timeout=10, headers={"Connection": "close"})
        assert response.status_code == 200, response.text

    get(cached_name)
    proxy.wait_for_access_log(f" target={network.plain_authority(cached_name)} ", " source=first ")
    assert httpdns_stub.count(name=cached_name, rtype="A") == 1

    renamed = proxy.config_path.read_text().replace('name = "first"', 'name = "second"')
    assert 'name = "second"' in renamed
    proxy.config_path.write_text(renamed.replace('[resolver]\n', '[resolver]\nmin_ttl = 120\n', 1))
    proxy.mark_logs()
    sighup_and_wait(proxy, notify_socket)
    log = proxy.process.stderr_text()
    assert "event=reload_needs_restart" not in log and "event=reload_resolver_refused" not in log, log[-3000:]

    get(cached_name)
    proxy.wait_for_access_log(f" target={network.plain_authority(cached_name)} ", " source=cache:first ")
    assert httpdns_stub.count(name=cached_name, rtype="A") == 1
    get(new_name)
    proxy.wait_for_access_log(f" target={network.plain_authority(new_name)} ", " source=second ")
    assert httpdns_stub.count(name=new_name, rtype="A") == 1


def test_a_refused_resolver_reload_keeps_the_running_resolver_everywhere_and_is_retried(
        service_ipdirect, notify_socket, network, httpdns_stub, tmp_path):
    """A new [resolver] that cannot start (its secret file is missing) is refused as a whole: the workers keep
    the running `order` too. Once the file exists, the next SIGHUP applies it."""
    from harness.resolver_config import HttpdnsProvider, httpdns_sections

    pinned = "pinned.reload.test"
    proxy = service_ipdirect(ConfigAdditions(
        proxy_keys={"upstream_max_idle_per_host": 0},
        resolver_keys={"order": ["hosts", "httpdns"]},
        sections=httpdns_sections(HttpdnsProvider(name="plain", format="json", url=httpdns_stub.url("json-google"))),
        environment={"NOTIFY_SOCKET": notify_socket.environment_value}))
    notify_socket.wait_for("READY")
    with_pin = with_host_entry(proxy.config_path.read_text(), pinned)
    secret = tmp_path / "aliyun-secret"
    signed = HttpdnsProvider(name="signed", format="aliyun", url=httpdns_stub.address_url("aliyun"),
                             account_id="100001", secret_file=secret)
    # `hosts` left out of the new order: if the workers took it, the pinned name would stop resolving.
    refused = with_pin.replace('order = ["hosts", "httpdns"]', 'order = ["httpdns"]')
    refused = refused[:refused.index("[[resolver.httpdns]]")] + httpdns_sections(signed)
    proxy.config_path.write_text(refused)
    sighup_and_wait(proxy, notify_socket)
    assert "event=reload_resolver_refused" in proxy.process.stderr_text()
    assert through(proxy).get(network.plain_url(name=pinned), timeout=10).status_code == 200

    secret.write_text("ALIYUN_SECRET_PLACEHOLDER")
    proxy.mark_logs()
    sighup_and_wait(proxy, notify_socket)
    assert "event=reload_resolver_refused" not in proxy.stderr_since_mark()
    assert through(proxy).get(network.plain_url(name=pinned), timeout=10).status_code == 502

"""Transparent mode end to end: a client that never heard of a proxy, whose own hosts file sends origin.test to
a hijacked address, is routed through a gateway whose nftables table (printed by `ipdirect nft-rules`) redirects
its connections to ipdirect, which takes each to where HTTPDNS says origin.test is. The client verifies the
origin's certificate itself: nothing is decrypted. Root only (network namespaces, nftables)."""

import re
import socket
import ssl
import time
import urllib.request
from pathlib import Path

import pytest

from harness.ipdirect_proxy import ipdirect_binary
from harness.transparent_network import (BANNER, BANNER_PORT, CLIENT_ADDRESS, CLIENT_ADDRESS6, GATEWAY_CLIENT_SIDE,
                                         HIJACKED, HIJACKED6, ORIGIN6_NAME, ORIGIN_NAME, RAW_PORT, RIGHT, RIGHT6,
                                         SNIFF_TIMEOUT_SECONDS, TransparentNetwork, transparent_available)

REPOSITORY = Path(__file__).resolve().parents[2]
UNIT = REPOSITORY / "systemd" / "ipdirect-transparent.service"
NOBODY = "65534"

unavailable = transparent_available()
pytestmark = pytest.mark.skipif(unavailable is not None, reason=unavailable or "")


@pytest.fixture(scope="module")
def network(tmp_path_factory, certificates):
    """One gateway whose rules exempt ipdirect's own user (root in the tests), shared by the module's tests."""
    network = TransparentNetwork(tmp_path_factory.mktemp("transparent"), certificates).start(exempt_user="root")
    yield network
    network.stop()


@pytest.fixture(autouse=True)
def fresh_logs(request):
    if "network" in request.fixturenames:
        network = request.getfixturevalue("network")
        network.ipdirect.mark_logs()
        for sink in network.raw_sinks.values():
            sink.received.clear()


def access_line(network, *fragments: str) -> str:
    line = network.ipdirect.wait_for_access_log(*fragments)
    assert line, f"no access-log line with {fragments}:\n{network.ipdirect.access_log_since_mark()}"
    return line


def client_hello(server_name: str | None, padding: int = 0) -> bytes:
    """A TLS 1.3-shaped ClientHello (RFC 8446 §4.1.2) with a server_name and an RFC 7685 padding extension."""
    def u16(value: int) -> bytes:
        return value.to_bytes(2, "big")
    body = b"\x03\x03" + b"\xab" * 32 + bytes([32]) + b"\x11" * 32 + b"\x00\x04\x13\x01\x13\x02" + b"\x01\x00"
    extensions = b"\x00\x2b\x00\x03\x02\x03\x04"
    if server_name:
        name = server_name.encode()
        entry = b"\x00" + u16(len(name)) + name
        extensions += b"\x00\x00" + u16(len(entry) + 2) + u16(len(entry)) + entry
    if padding:
        extensions += b"\x00\x15" + u16(padding) + b"\x00" * padding
    body += u16(len(extensions)) + extensions
    message = b"\x01" + len(body).to_bytes(3, "big") + body
    return b"\x16\x03\x01" + u16(len(message)) + message


def send_to(network, address: str, port: int, payload: bytes, then_wait: float = 1.0) -> None:
    with network.client.entered():
        connection = socket.create_connection((address, port), timeout=5)
    with connection:
        connection.sendall(payload)
        time.sleep(then_wait)


def wait_for(sink, timeout: float = 5.0) -> list[bytes]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not sink.received:
        time.sleep(0.05)
    return sink.received


def test_https_to_a_hijacked_address_reaches_the_httpdns_address_with_the_certificate_verified(network):
    fetched = network.curl(f"https://{ORIGIN_NAME}/")
    assert fetched.returncode == 0, fetched.stderr
    assert fetched.stdout.startswith("right sni=origin.test"), fetched.stdout
    line = access_line(network, f" target={ORIGIN_NAME}:443 ", " mode=transparent ")
    assert f" client={CLIENT_ADDRESS}:" in line
    assert f" upstream={RIGHT}:443 " in line
    assert f" orig={HIJACKED}:443 sniffed=tls sni={ORIGIN_NAME}" in line
    assert " method=TLS " in line
    events = network.ipdirect.stderr_since_mark()
    assert re.search(rf"event=transparent_mismatch name={ORIGIN_NAME} sniffed=tls orig={HIJACKED}:443 answer={RIGHT} ",
                     events), events


def test_an_ipv6_connection_reads_its_ipv6_original_destination_and_reaches_the_httpdns_address(network):
    fetched = network.curl(f"https://{ORIGIN6_NAME}/", extra=("-6",))
    assert fetched.returncode == 0, fetched.stderr
    assert fetched.stdout.startswith(f"right6 sni={ORIGIN6_NAME}"), fetched.stdout
    line = access_line(network, f" target={ORIGIN6_NAME}:443 ")
    assert f" client=[{CLIENT_ADDRESS6}]:" in line and f" orig=[{HIJACKED6}]:443 " in line, line
    assert f" upstream=[{RIGHT6}]:443 " in line, line


def test_plain_http_goes_to_its_hosts_httpdns_address(network):
    fetched = network.curl(f"http://{ORIGIN_NAME}/page")
    assert fetched.returncode == 0, fetched.stderr
    assert fetched.stdout.startswith("right host=origin.test"), fetched.stdout
    line = access_line(network, f" target={ORIGIN_NAME}:80 ", " mode=transparent ")
    assert " method=GET " in line and " status=200 " in line
    assert f" orig={HIJACKED}:80 sniffed=http sni=-" in line


def test_a_client_hello_split_over_two_writes_still_routes_by_its_server_name(network):
    context = ssl.create_default_context(cafile=str(network.certificates.ca_file))
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname=ORIGIN_NAME)
    with network.client.entered():
        connection = socket.create_connection((HIJACKED, 443), timeout=5)
    with connection:
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with pytest.raises(ssl.SSLWantReadError):
            tls.do_handshake()
        hello = outgoing.read()
        half = len(hello) // 2
        connection.sendall(hello[:half])
        time.sleep(0.2)
        connection.sendall(hello[half:])
        while True:
            try:
                tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                if pending := outgoing.read():
                    connection.sendall(pending)
                data = connection.recv(65536)
                assert data, "the connection closed during the handshake"
                incoming.write(data)
        tls.write(f"GET / HTTP/1.1\r\nHost: {ORIGIN_NAME}\r\nConnection: close\r\n\r\n".encode())
        connection.sendall(outgoing.read())
        answer = b""
        while True:
            try:
                chunk = tls.read(65536)
                if not chunk:
                    break
                answer += chunk
            except ssl.SSLWantReadError:
                data = connection.recv(65536)
                if not data:
                    break
                incoming.write(data)
            except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
                break
    assert b"right sni=origin.test" in answer, answer
    assert tls.getpeercert()["subjectAltName"] == (("DNS", ORIGIN_NAME),)


def test_a_long_padded_client_hello_is_read_and_replayed_whole(network):
    hello = client_hello(ORIGIN_NAME, padding=2_400)
    assert len(hello) >= 2_500
    send_to(network, HIJACKED, RAW_PORT, hello)
    received = wait_for(network.raw_sinks[RIGHT])
    assert received == [hello], f"the right address got {received}"
    assert not network.raw_sinks[HIJACKED].received
    line = access_line(network, f" target={ORIGIN_NAME}:{RAW_PORT} ")
    assert " sniffed=tls " in line


def test_a_client_hello_without_server_name_goes_to_the_original_address(network):
    hello = client_hello(None)
    send_to(network, HIJACKED, RAW_PORT, hello)
    assert wait_for(network.raw_sinks[HIJACKED]) == [hello]
    assert not network.raw_sinks[RIGHT].received
    line = access_line(network, f" target={HIJACKED}:{RAW_PORT} ")
    assert " sniffed=none " in line and " method=TCP " in line


def send_from_the_gateway_as_nobody(network, address: str, port: int, payload: bytes) -> None:
    """A program on the gateway itself, which the output chain redirects (ipdirect's user, root, is exempt)."""
    script = ("import socket, sys, time; c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5); "
              "c.sendall(bytes.fromhex(sys.argv[3])); time.sleep(1)")
    network.gateway.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "python3", "-c", script,
                         address, str(port), payload.hex()])


def test_bytes_that_name_nothing_go_to_the_name_the_dns_listener_gave_that_client_and_no_other(network):
    hint = "raw.test"
    network.stub.set_record(hint, a=(RIGHT,), ttl=60)
    answer = network.client.run(["dig", f"@{GATEWAY_CLIENT_SIDE}", "-p", str(network.dns_port), hint, "A", "+short",
                                 "+tries=1", "+time=3"]).stdout
    assert RIGHT in answer.split(), answer
    hello = client_hello(None)
    send_to(network, RIGHT, RAW_PORT, hello)
    assert wait_for(network.raw_sinks[RIGHT]) == [hello]
    line = access_line(network, f" target={hint}:{RAW_PORT} ")
    assert " sniffed=dns " in line and f" client={CLIENT_ADDRESS}:" in line, line
    # The gateway's own programs never asked for the name: theirs go to the original address, by no name.
    network.raw_sinks[RIGHT].received.clear()
    send_from_the_gateway_as_nobody(network, RIGHT, RAW_PORT, hello)
    assert wait_for(network.raw_sinks[RIGHT]) == [hello]
    line = access_line(network, f" target={RIGHT}:{RAW_PORT} ")
    assert " sniffed=none " in line, line


def test_a_server_speaks_first_protocol_falls_back_to_the_original_address_after_the_sniff_timeout(network):
    with network.client.entered():
        connection = socket.create_connection((HIJACKED, BANNER_PORT), timeout=5)
    with connection:
        started = time.monotonic()
        banner = connection.recv(1024)
        waited = time.monotonic() - started
    assert banner == BANNER
    assert waited >= SNIFF_TIMEOUT_SECONDS * 0.8, f"the banner came after {waited:.2f} s"
    access_line(network, f" target={HIJACKED}:{BANNER_PORT} ", " sniffed=none ")


def test_local_programs_are_redirected_while_ipdirects_own_connections_are_exempt(network):
    # Run as nobody in the gateway itself: the output chain redirects it, while ipdirect (root, exempt) connects.
    fetched = network.curl(f"https://{ORIGIN_NAME}/", namespace=network.gateway, user=NOBODY)
    assert fetched.returncode == 0, fetched.stderr
    assert fetched.stdout.startswith("right sni=origin.test"), fetched.stdout
    line = access_line(network, f" target={ORIGIN_NAME}:443 ", f" orig={HIJACKED}:443 ")
    assert f" upstream={RIGHT}:443 " in line
    assert "transparent_loop" not in network.ipdirect.stderr_since_mark()


def test_the_metric_counts_connections_by_what_named_their_host(network):
    assert network.curl(f"https://{ORIGIN_NAME}/").returncode == 0
    access_line(network, f" target={ORIGIN_NAME}:443 ")
    with network.gateway.entered():
        metrics = urllib.request.urlopen(network.ipdirect.admin_url("/metrics"), timeout=5).read().decode()
    match = re.search(r'^ipdirect_transparent_connections_total\{sniffed="tls",outcome="resolved"\} (\d+)$', metrics, re.M)
    assert match and int(match.group(1)) >= 1, metrics


def test_without_the_exemption_its_own_connections_come_back_and_are_refused_a_bounded_number_of_times(
        tmp_path, certificates):
    network = TransparentNetwork(tmp_path, certificates).start(exempt_user=NOBODY)
    try:
        network.ipdirect.mark_logs()
        fetched = network.curl(f"https://{ORIGIN_NAME}/", extra=("--max-time", "5"))
        assert fetched.returncode != 0, "the request cannot succeed while ipdirect's own connects loop back"
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and "event=transparent_loop" not in network.ipdirect.stderr_since_mark():
            time.sleep(0.1)
        events = network.ipdirect.stderr_since_mark()
        loops = re.findall(r"event=transparent_loop [^\n]*reason=own_connection", events)
        assert loops, events
        assert len(loops) <= 3, f"{len(loops)} loops for one request:\n{events}"
        accepted = re.findall(rf"event=transparent_\w+ orig={RIGHT}:443", events)
        assert len(accepted) <= 3, events
    finally:
        network.stop()


def _unit_commands(key: str, config: str, runtime_directory) -> list[list[str]]:
    """The unit's `key=` command lines, in order, as systemd would run them: on the binary under test, the
    test's configuration and a runtime directory of the test's own."""
    lines = re.findall(rf"^{key}=(.+)$", UNIT.read_text(), re.M)
    assert lines, f"the unit has no {key}"
    commands = []
    for line in lines:
        line = (line.replace("/usr/local/bin/ipdirect", str(ipdirect_binary()))
                .replace("/etc/ipdirect/ipdirect.toml", config)
                .replace("/run/ipdirect-transparent", str(runtime_directory)))
        commands.append(["sh", "-c", line])
    return commands


def test_the_units_start_loads_the_table_its_reload_replaces_it_and_its_stop_removes_it(network, tmp_path):
    config = str(network.ipdirect.config_path)
    network.gateway.run(["nft", "delete", "table", "inet", "ipdirect"])
    assert not network.table_exists()
    try:
        for command in _unit_commands("ExecStart", config, tmp_path):
            network.gateway.run(command)
        assert network.table_exists()
        # Loading again replaces the table rather than failing or doubling it.
        for command in _unit_commands("ExecReload", config, tmp_path):
            network.gateway.run(command)
        listed = network.gateway.run(["nft", "list", "table", "inet", "ipdirect"]).stdout
        assert listed.count(f"redirect to :{network.transparent_port}") == 2, listed
        for command in _unit_commands("ExecStop", config, tmp_path):
            network.gateway.run(command)
        assert not network.table_exists()
        # A configuration nft-rules refuses fails the start at its first command, with no table loaded.
        off = tmp_path / "off.toml"
        off.write_text("[proxy]\nlisten = \"127.0.0.1:1\"\n")
        first, *_ = _unit_commands("ExecStart", str(off), tmp_path)
        assert network.gateway.run(first, check=False).returncode != 0
        assert not network.table_exists()
    finally:
        if not network.table_exists():
            network.load_rules()

"""Programs that use the system's resolver get HTTPDNS answers once resolv.conf names ipdirect: glibc's
`getent ahosts` and a plain `curl` (no proxy), run with their own /etc/resolv.conf bound over the machine's in a
mount namespace, reach the address the HTTPDNS provider gives while the LocalDNS (a dnsmasq that ipdirect's
`system` source asks) says otherwise; and a dnsmasq forwarding to ipdirect hands its answers on."""

import subprocess

import pytest

from harness.dns_listener import dig, dns_section, wait_for_listener
from harness.dns_server import start_dnsmasq
from harness.ports import LOOPBACK, free_port
from harness.processes import ManagedProcess, start_on_free_ports
from harness.resolution_checks import start_resolving

PROVIDER = "unbound-get"
# glibc takes a nameserver address without a port: the listener needs port 53, on an address of its own.
GLIBC_LISTENER = "127.0.0.153"
HIJACKED_ADDRESS = "127.0.0.9"
COMMAND_TIMEOUT_SECONDS = 20


def in_own_resolv_conf(tmp_path, nameserver: str, *command: str) -> subprocess.CompletedProcess:
    """`command` in a mount namespace where /etc/resolv.conf names only `nameserver` and /etc/hosts is empty."""
    resolv = tmp_path / "resolv.conf"
    resolv.write_text(f"nameserver {nameserver}\noptions attempts:1 timeout:2\n")
    hosts = tmp_path / "hosts"
    hosts.write_text("127.0.0.1 localhost\n")
    script = 'mount --bind "$1" /etc/resolv.conf && mount --bind "$2" /etc/hosts && shift 2 && exec "$@"'
    return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(resolv), str(hosts), *command],
                          capture_output=True, text=True, timeout=COMMAND_TIMEOUT_SECONDS)


@pytest.fixture
def hijacking_local_dns(tmp_path):
    """A dnsmasq that answers every name under `.hijack.test` with HIJACKED_ADDRESS, as a hijacked LocalDNS."""
    server = start_dnsmasq("hijacker", tmp_path / "hijacker", [f"--address=/hijack.test/{HIJACKED_ADDRESS}"])
    yield server
    server.stop()


def test_getent_and_curl_without_a_proxy_reach_the_httpdns_address_not_the_local_dns_one(
        provider_setup, start_ipdirect, network, hijacking_local_dns, tmp_path):
    if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        pytest.skip("needs root for a mount namespace (unshare -m)")
    setup = provider_setup(PROVIDER)
    name = "www.hijack.test"
    setup.set_addresses(name, a=(LOOPBACK,))
    section = f'\n[dns]\nlisten = ["{GLIBC_LISTENER}:53"]\nquery_log_level = "info"\n'
    own = start_resolving(start_ipdirect, setup, order=("hosts", "httpdns", "system"),
                          resolver_keys={"system_nameservers": [hijacking_local_dns.address]}, extra_sections=section)
    local = dig(hijacking_local_dns.port, name)
    assert local.addresses == [HIJACKED_ADDRESS], local.text

    resolved = in_own_resolv_conf(tmp_path, GLIBC_LISTENER, "getent", "ahosts", name)
    assert resolved.returncode == 0, resolved.stderr
    assert {line.split()[0] for line in resolved.stdout.splitlines()} == {LOOPBACK}, resolved.stdout

    url = network.plain_url("/", name)
    fetched = in_own_resolv_conf(tmp_path, GLIBC_LISTENER, "curl", "--silent", "--show-error", "--noproxy", "*",
                                 "--max-time", "10", "--write-out", "\n%{remote_ip}", url)
    assert fetched.returncode == 0, fetched.stderr
    assert fetched.stdout.endswith(f"\n{LOOPBACK}"), fetched.stdout
    assert setup.queries(name, "A") == 1
    logged = own.stderr_since_mark()
    assert any(all(part in line for part in ("event=dns_query", f"name={name}.", "type=A", "rcode=NOERROR"))
               for line in logged.splitlines()), logged


def test_a_dnsmasq_forwarding_to_ipdirect_hands_on_its_answers(provider_setup, start_ipdirect, tmp_path):
    setup = provider_setup(PROVIDER)
    port = free_port()
    start_resolving(start_ipdirect, setup, extra_sections=dns_section(port))
    wait_for_listener(port)
    forwarder = start_dnsmasq("forwarder", tmp_path / "forwarder", [f"--server={LOOPBACK}#{port}"])
    try:
        name = "forwarded.dns-listener.test"
        setup.set_addresses(name, a=("198.51.100.70", "198.51.100.71"))
        answer = dig(forwarder.port, name)
        assert sorted(answer.addresses) == ["198.51.100.70", "198.51.100.71"], answer.text
        assert setup.queries(name, "A") == 1
    finally:
        forwarder.stop()


def start_forwarding_unbound(directory, upstream_port: int) -> ManagedProcess:
    """An unbound on a free loopback port that forwards every name to ipdirect's listener, caching answers."""
    directory.mkdir(parents=True, exist_ok=True)

    def command_for(ports: list[int]) -> list[str]:
        config = directory / "unbound.conf"
        config.write_text(f"""server:
  username: ""
  chroot: ""
  directory: "{directory}"
  pidfile: "{directory / 'unbound.pid'}"
  use-syslog: no
  logfile: "{directory / 'unbound.log'}"
  interface: {LOOPBACK}@{ports[0]}
  port: {ports[0]}
  access-control: 127.0.0.0/8 allow
  do-ip6: no
  do-not-query-localhost: no
  module-config: "iterator"
  auto-trust-anchor-file: ""
  # unbound answers RFC 6761's test. itself unless told not to.
  local-zone: "test." nodefault
forward-zone:
  name: "."
  forward-addr: {LOOPBACK}@{upstream_port}
""")
        return ["unbound", "-d", "-c", str(config)]

    process, ports = start_on_free_ports("forwarding-unbound", 1, directory, command_for)
    process.dns_port = ports[0]
    return process


def test_an_unbound_forwarding_to_ipdirect_hands_on_its_answers(provider_setup, start_ipdirect, tmp_path):
    setup = provider_setup(PROVIDER)
    port = free_port()
    start_resolving(start_ipdirect, setup, extra_sections=dns_section(port))
    wait_for_listener(port)
    forwarder = start_forwarding_unbound(tmp_path / "forwarding-unbound", port)
    try:
        name = "unbound-forwarded.dns-listener.test"
        setup.set_addresses(name, a=("198.51.100.80",), aaaa=("2001:db8::80",))
        answer = dig(forwarder.dns_port, name)
        assert answer.addresses == ["198.51.100.80"], answer.text
        assert dig(forwarder.dns_port, name, "AAAA").addresses == ["2001:db8::80"]
        assert setup.queries(name, "A") == 1
    finally:
        forwarder.stop()

"""Programs that use the system's resolver get HTTPDNS answers once resolv.conf names ipdirect: glibc's
`getent ahosts` and a plain `curl` (no proxy), run in a network namespace whose /etc/netns/NAME/resolv.conf names
ipdirect's listener across a veth pair, reach the address the HTTPDNS provider gives while the LocalDNS (a dnsmasq
that ipdirect's `system` source asks) says otherwise; and a dnsmasq or an unbound forwarding to ipdirect hands its
answers on."""

import os
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest

from harness.dns_listener import dig, dns_section, wait_for_listener
from harness.dns_server import start_dnsmasq
from harness.ports import LOOPBACK, free_port
from harness.processes import ManagedProcess, start_on_free_ports
from harness.resolution_checks import start_resolving

PROVIDER = "unbound-get"
# glibc takes a nameserver address without a port: the listener needs port 53, on the machine's end of a veth
# pair into the client's namespace (198.18.0.0/15, RFC 2544's range for test networks).
VETH_NETWORK = "198.18.53.0"
VETH_HOST = "198.18.53.1"
VETH_PEER = "198.18.53.2"
VETH_PREFIX = 30
NETNS_CONFIG_DIRECTORY = Path("/etc/netns")
HIJACKED_ADDRESS = "127.0.0.9"
COMMAND_TIMEOUT_SECONDS = 20


@contextmanager
def resolv_conf_of(namespace, nameserver: str):
    """/etc/netns/NAME/resolv.conf naming only `nameserver` and an /etc/netns/NAME/hosts without the test's names:
    `ip netns exec NAME` binds them over the machine's for what runs there."""
    directory = NETNS_CONFIG_DIRECTORY / namespace.name
    directory.mkdir(parents=True)
    try:
        (directory / "resolv.conf").write_text(f"nameserver {nameserver}\noptions attempts:1 timeout:2\n")
        (directory / "hosts").write_text("127.0.0.1 localhost\n")
        yield
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@contextmanager
def veth_to(namespace):
    """A veth pair from the machine (VETH_HOST) into `namespace` (VETH_PEER); gone with the namespace."""
    host_end, peer_end = f"ipdv{os.getpid() % 100000}h", f"ipdv{os.getpid() % 100000}p"
    subprocess.run(["ip", "link", "add", host_end, "type", "veth", "peer", "name", peer_end], check=True)
    try:
        subprocess.run(["ip", "link", "set", peer_end, "netns", namespace.name], check=True)
        subprocess.run(["ip", "addr", "add", f"{VETH_HOST}/{VETH_PREFIX}", "dev", host_end], check=True)
        subprocess.run(["ip", "link", "set", host_end, "up"], check=True)
        namespace.run(["ip", "addr", "add", f"{VETH_PEER}/{VETH_PREFIX}", "dev", peer_end])
        namespace.run(["ip", "link", "set", peer_end, "up"])
        yield
    finally:
        subprocess.run(["ip", "link", "del", host_end], capture_output=True)


@pytest.fixture
def hijacking_local_dns(tmp_path):
    """A dnsmasq that answers every name under `.hijack.test` with HIJACKED_ADDRESS, as a hijacked LocalDNS."""
    server = start_dnsmasq("hijacker", tmp_path / "hijacker", [f"--address=/hijack.test/{HIJACKED_ADDRESS}"])
    yield server
    server.stop()


def test_getent_and_curl_without_a_proxy_reach_the_httpdns_address_not_the_local_dns_one(
        provider_setup, start_ipdirect, hijacking_local_dns, netns, namespace_origins):
    setup = provider_setup(PROVIDER)
    name = "www.hijack.test"
    origin_address = netns.addresses[0]
    origins = namespace_origins({origin_address: 0.0})
    setup.set_addresses(name, a=(origin_address,))
    with veth_to(netns), resolv_conf_of(netns, VETH_HOST):
        section = f'\n[dns]\nlisten = ["{VETH_HOST}:53"]\nquery_log_level = "info"\n'
        own = start_resolving(start_ipdirect, setup, order=("hosts", "httpdns", "system"),
                              resolver_keys={"system_nameservers": [hijacking_local_dns.address]},
                              access_keys={"clients": ["127.0.0.0/8", f"{VETH_NETWORK}/{VETH_PREFIX}"]},
                              extra_sections=section)
        local = dig(hijacking_local_dns.port, name)
        assert local.addresses == [HIJACKED_ADDRESS], local.text

        resolved = netns.run(["getent", "ahosts", name], check=False, timeout=COMMAND_TIMEOUT_SECONDS)
        assert resolved.returncode == 0, resolved.stderr
        assert {line.split()[0] for line in resolved.stdout.splitlines()} == {origin_address}, resolved.stdout

        url = f"http://{name}:{origins.port}/"
        fetched = netns.run(["curl", "--silent", "--show-error", "--noproxy", "*", "--max-time", "10",
                             "--write-out", "\n%{remote_ip}", url], check=False, timeout=COMMAND_TIMEOUT_SECONDS)
        assert fetched.returncode == 0, fetched.stderr
        assert fetched.stdout.endswith(f"\n{origin_address}"), fetched.stdout
        assert origins.requests_per_address()[origin_address] == 1
        assert setup.queries(name, "A") == 1
        logged = own.stderr_since_mark()
        assert any(all(part in line for part in ("event=dns_query", f"client={VETH_PEER}:", f"name={name}.", "type=A",
                                                 "rcode=NOERROR"))
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

"""How HTTPDNS lookups recover from failure: an HTTP/2 connection whose stream timed out is not reused for later
names, a stale name is not queried again on every request while its provider fails, and an endpoint without a
ca_file of its own trusts what [tls] trusts."""

import socket
import subprocess
import threading
import time

import pytest
import requests

from harness.httpdns_state import StubMode
from harness.ipdirect_proxy import ConfigAdditions, ipdirect_binary
from harness.ports import LOOPBACK
from harness.resolver_config import HttpdnsProvider, httpdns_sections
from harness.resolver_records import RESOLVED_NAME

REQUEST_TIMEOUT_SECONDS = 10
# Long enough to tell a timed-out attempt from a prompt answer on a busy machine.
PROVIDER_TIMEOUT_MS = 1500
# An answer from a live connection takes milliseconds; one that waits out a dead one takes PROVIDER_TIMEOUT_MS.
PROMPT_SECONDS = 0.75
# Loopback addresses the relays listen on, as two bootstrap addresses of one provider.
RELAY_ADDRESSES = ("127.0.0.2", "127.0.0.3")
RELAY_CHUNK = 65536


class LoopbackRelay:
    """Forwards TCP connections from `address:port` to `target`. `blackhole_existing()` makes the connections
    open at that moment silently drop every byte in both directions while staying open, as a NAT that forgot a
    flow does; connections accepted later are forwarded normally."""

    def __init__(self, address: str, port: int, target: tuple[str, int]):
        self.target = target
        self.listener = socket.create_server((address, port))
        self.listener.settimeout(0.2)
        self.connections: list[dict] = []
        self.lock = threading.Lock()
        self.running = True
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while self.running:
            try:
                client, _ = self.listener.accept()
            except (socket.timeout, OSError):
                continue
            upstream = socket.create_connection(self.target)
            state = {"dropping": False, "sockets": (client, upstream)}
            with self.lock:
                self.connections.append(state)
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink, state), daemon=True).start()

    @staticmethod
    def _pump(source, sink, state):
        try:
            while True:
                data = source.recv(RELAY_CHUNK)
                if not data:
                    break
                if not state["dropping"]:
                    sink.sendall(data)
        except OSError:
            pass
        if not state["dropping"]:
            for end in state["sockets"]:
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def blackhole_existing(self) -> int:
        with self.lock:
            for state in self.connections:
                state["dropping"] = True
            return len(self.connections)

    def close(self):
        self.running = False
        self.listener.close()
        with self.lock:
            for state in self.connections:
                state["dropping"] = True
                for end in state["sockets"]:
                    end.close()


def shared_free_port(addresses) -> int:
    """A port free on every one of `addresses`."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind((addresses[0], 0))
            port = probe.getsockname()[1]
        try:
            for address in addresses[1:]:
                with socket.socket() as other:
                    other.bind((address, port))
            return port
        except OSError:
            continue
    pytest.fail("no port free on every relay address")


def proxied_session(own) -> requests.Session:
    session = requests.Session()
    session.trust_env = False
    session.proxies = own.proxies
    return session


def timed_get(session, url) -> float:
    started = time.monotonic()
    session.get(url, timeout=REQUEST_TIMEOUT_SECONDS)
    return time.monotonic() - started


def test_an_http2_connection_whose_stream_timed_out_is_not_reused_for_later_names(start_ipdirect, unbound_doh,
                                                                                  network, certificates):
    """A stream that timed out says nothing came back on the connection: the next names must not wait out the
    same dead HTTP/2 connection again (HTTP/1.1 already closes the connection on a timeout)."""
    port = shared_free_port(RELAY_ADDRESSES)
    relays = [LoopbackRelay(address, port, (LOOPBACK, unbound_doh.port)) for address in RELAY_ADDRESSES]
    try:
        names = [f"relay{index}.review.test" for index in range(4)]
        for name in names:
            unbound_doh.set_record(name, "A", "127.0.0.1", 300)
        provider = HttpdnsProvider(name="unbound", format="doh", url=f"https://{unbound_doh.host_name}:{port}/dns-query",
                                   bootstrap=list(RELAY_ADDRESSES), ca_file=certificates.ca_file,
                                   timeout_ms=PROVIDER_TIMEOUT_MS)
        own = start_ipdirect(ConfigAdditions(resolver_keys={"order": ["hosts", "httpdns"]},
                                             sections=httpdns_sections(provider)))
        session = proxied_session(own)
        assert timed_get(session, network.plain_url(name=names[0])) < PROMPT_SECONDS
        assert relays[0].blackhole_existing() == 1, "ipdirect should hold one HTTP/2 connection to the first address"
        # This name waits out the dead connection once, then the second address answers.
        first_after = timed_get(session, network.plain_url(name=names[1]))
        later = [timed_get(session, network.plain_url(name=name)) for name in names[2:]]
        assert all(seconds < PROMPT_SECONDS for seconds in later), \
            f"after the first timeout ({first_after:.2f} s), later names still took {[round(s, 2) for s in later]} s"
    finally:
        for relay in relays:
            relay.close()


def test_a_stale_name_is_not_queried_again_on_every_request_while_its_provider_fails(start_ipdirect, httpdns_stub,
                                                                                    network):
    """Served stale while "one refresh runs": a provider that answers errors must not get one query per
    request for the name."""
    name = "stale.review.test"
    httpdns_stub.set_record(name, a=("127.0.0.1",), ttl=1)
    provider = HttpdnsProvider(name="stub", format="json", url=httpdns_stub.url("json-google"),
                               bootstrap=[httpdns_stub.bootstrap], timeout_ms=PROVIDER_TIMEOUT_MS)
    own = start_ipdirect(ConfigAdditions(resolver_keys={"order": ["hosts", "httpdns"], "min_ttl": 1, "max_ttl": 1},
                                         sections=httpdns_sections(provider)))
    session = proxied_session(own)
    # A port nothing listens on: every request resolves the name (no pooled upstream connection to reuse).
    url = f"http://{name}:{network.closed_port}/"
    session.get(url, timeout=REQUEST_TIMEOUT_SECONDS)
    time.sleep(1.5)
    httpdns_stub.set_mode(StubMode.http_error(503))
    before = httpdns_stub.count(name=name)
    requests_sent = 30
    for _ in range(requests_sent):
        session.get(url, timeout=REQUEST_TIMEOUT_SECONDS)
        time.sleep(0.05)
    queries = httpdns_stub.count(name=name) - before
    # One refresh asks for A and AAAA; allow a second try.
    assert queries <= 4, f"{requests_sent} requests for a stale name sent {queries} queries to the failing provider"


def test_an_httpdns_endpoint_without_its_own_ca_file_trusts_the_tls_section(start_ipdirect, unbound_doh):
    """docs/configuration.md: a provider's ca_file is trusted "instead of those set in [tls]", so without one the [tls]
    ca_file applies (the test configuration sets [tls] ca_file to the test CA)."""
    provider = HttpdnsProvider(name="unbound", format="doh", url=unbound_doh.url, bootstrap=[unbound_doh.bootstrap])
    own = start_ipdirect(ConfigAdditions(resolver_keys={"order": ["hosts", "httpdns"]},
                                         sections=httpdns_sections(provider)))
    result = subprocess.run([str(ipdirect_binary()), "resolve", "--config", str(own.config_path), RESOLVED_NAME],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert "source=unbound" in result.stdout

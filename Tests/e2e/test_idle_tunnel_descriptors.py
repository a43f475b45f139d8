"""An idle CONNECT tunnel holds only its two sockets: pipes are borrowed while bytes are in flight and given
back when empty, so many idle tunnels fit in a descriptor limit that one pipe pair per direction would burst."""

import os
import socket
import subprocess

from harness.connect_tunnel import open_connect_tunnel, unlabelled_metric as metric
from harness.echo_origin import EchoOrigin
from harness.ipdirect_proxy import ConfigAdditions
from harness.ports import LOOPBACK

# Enough tunnels that a few descriptors more per tunnel would not fit the limit set below.
TUNNELS = 1000
# Descriptors the proxy may hold beyond two per tunnel: what it held before the tunnels, plus room for the
# pipes it keeps for reuse (at most 64 pairs per worker) and a pooled connection or two.
HEADROOM = 2 * 64 + 16
SOCKET_TIMEOUT_SECONDS = 10


def descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def echo_through(client: socket.socket, payload: bytes) -> None:
    client.sendall(payload)
    received = b""
    while len(received) < len(payload):
        chunk = client.recv(len(payload) - len(received))
        assert chunk, "the tunnel closed before the echo came back"
        received += chunk
    assert received == payload


def test_a_thousand_idle_tunnels_hold_two_descriptors_each_within_a_tight_limit(start_ipdirect):
    with EchoOrigin() as origin:
        own = start_ipdirect(ConfigAdditions(proxy_keys={"workers": 1}, admin=True,
                                             access_keys={"connect_ports": [origin.port]}))
        pid = own.process.pid
        before = descriptors(pid)
        limit = before + 2 * TUNNELS + HEADROOM
        subprocess.run(["prlimit", f"--pid={pid}", f"--nofile={limit}:{limit}"], check=True)
        tunnels = []
        try:
            for number in range(TUNNELS):
                tunnel = open_connect_tunnel(own.address, f"{LOOPBACK}:{origin.port}", SOCKET_TIMEOUT_SECONDS)
                tunnels.append(tunnel)
                # Bytes both ways: each direction has borrowed a pipe at least once.
                echo_through(tunnel, b"tunnel %d\n" % number)
            held = descriptors(pid) - before
            pipes_open = metric(own, "ipdirect_pipes_open")
            assert metric(own, "ipdirect_tunnels_active") == TUNNELS
            assert metric(own, "ipdirect_spliced_bytes_total") > 0
            assert pipes_open <= 64
            assert held <= 2 * TUNNELS + 2 * pipes_open + 16, \
                f"{TUNNELS} idle tunnels hold {held} descriptors ({pipes_open:.0f} pipes open)"
            # Idle for a while, every tunnel still carries bytes both ways.
            for number, tunnel in enumerate(tunnels):
                echo_through(tunnel, b"again %d\n" % number)
        finally:
            for tunnel in tunnels:
                tunnel.close()
        assert "event=accept_failed" not in own.process.stderr_text()

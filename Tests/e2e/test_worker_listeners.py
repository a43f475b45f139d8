"""With several workers, each has a listening socket of its own on every address (SO_REUSEPORT), so clients that
connect at once are spread over the workers instead of all landing on whichever loop woke first; a second
instance on the same address is still refused."""

import os
import re
import signal
import subprocess

import pytest

from harness.ipdirect_proxy import ConfigAdditions, IpdirectProxy, ipdirect_binary, ipdirect_config_text
from harness.ports import LOOPBACK
from harness.raw_http import RawConnection

WORKERS = 2
# Connections opened in one burst, as a browser or a load generator opens them.
BURST = 64
# The fewest a worker may get of the burst. The kernel hashes each connection's addresses to a socket, so each
# worker gets about half; fewer than an eighth is, for a fair spread of 64, a chance below one in a billion.
FEWEST_PER_WORKER = BURST // 8
EXIT_SECONDS = 15
# /proc/net/tcp's state column for a listening socket.
TCP_LISTEN = "0A"
# "worker=1 event=draining closed_idle=30 in_flight=2": each loop's sessions when the drain began.
DRAINING = re.compile(r"worker=(\d+) event=draining closed_idle=(\d+) in_flight=(\d+)")


@pytest.fixture
def workers_proxy(tmp_path, network, certificates):
    """An ipdirect with two workers that the test may stop itself (the shared fixtures fail a test whose
    instance exited)."""
    own = IpdirectProxy(tmp_path / "ipdirect-workers", network, certificates.ca_file,
                        ConfigAdditions(proxy_keys={"workers": WORKERS}))
    own.start()
    yield own
    own.stop()


def listening_sockets_of(pid: int, port: int) -> int:
    """How many of the process's descriptors are TCP sockets listening on `port` (IPv4)."""
    with open(f"/proc/{pid}/net/tcp") as table:
        inodes = {fields[9] for fields in (line.split() for line in list(table)[1:])
                  if fields[3] == TCP_LISTEN and int(fields[1].rsplit(":", 1)[1], 16) == port}
    descriptors = os.listdir(f"/proc/{pid}/fd")
    return sum(1 for fd in descriptors if _socket_inode(pid, fd) in inodes)


def _socket_inode(pid: int, fd: str) -> str | None:
    try:
        target = os.readlink(f"/proc/{pid}/fd/{fd}")
    except OSError:
        return None
    return target[len("socket:["):-1] if target.startswith("socket:[") else None


def test_each_worker_listens_on_a_socket_of_its_own(workers_proxy):
    assert listening_sockets_of(workers_proxy.process.pid, workers_proxy.port) == WORKERS


def test_clients_connecting_at_once_are_spread_over_every_worker(workers_proxy, network):
    clients = [RawConnection(workers_proxy.address) for _ in range(BURST)]
    try:
        for client in clients:
            client.send(f"GET {network.plain_url()} HTTP/1.1\r\nHost: {network.plain_authority()}\r\n\r\n".encode())
        for client in clients:
            assert client.read_response().status == 200
        # Every client now sits idle on its worker; at SIGTERM each loop logs how many sessions it holds.
        workers_proxy.process.popen.send_signal(signal.SIGTERM)
        assert workers_proxy.process.popen.wait(timeout=EXIT_SECONDS) == 0
    finally:
        for client in clients:
            client.close()
    held = {int(worker): int(idle) + int(busy)
            for worker, idle, busy in DRAINING.findall(workers_proxy.process.stderr_text())}
    assert sorted(held) == list(range(WORKERS)), workers_proxy.process.stderr_text()
    assert sum(held.values()) == BURST, held
    assert min(held.values()) >= FEWEST_PER_WORKER, held


def test_a_second_instance_on_the_same_address_is_refused(workers_proxy, tmp_path, network, certificates):
    config = tmp_path / "same-address.toml"
    config.write_text(ipdirect_config_text([f"{LOOPBACK}:{workers_proxy.port}"], network, certificates.ca_file,
                                           additions=ConfigAdditions(proxy_keys={"workers": WORKERS})))
    run = subprocess.run([str(ipdirect_binary()), "run", "--config", str(config)], capture_output=True, text=True,
                         timeout=EXIT_SECONDS)
    assert run.returncode == 1
    assert f"cannot listen on {LOOPBACK}:{workers_proxy.port}: Address already in use" in run.stderr

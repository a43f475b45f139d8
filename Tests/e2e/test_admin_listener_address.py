"""Several ipdirect instances on one machine with the default configuration: the built-in admin address
(127.0.0.1:8081) goes to the first, the others warn and serve without an admin listener; an admin address the
file writes that cannot be bound still stops startup."""

import socket
import subprocess
import time

import pytest
import requests

from harness.ipdirect_proxy import ConfigAdditions, ipdirect_binary, ipdirect_config_text
from harness.namespace_client import NamespaceClient
from harness.ports import LOOPBACK
from harness.resolution_checks import fetch

DEFAULT_ADMIN = f"{LOOPBACK}:8081"
# The warning follows the proxy listener's bind: give it this long to reach the log.
LOG_WAIT_SECONDS = 5.0
ADMIN_TIMEOUT_SECONDS = 10.0
OTHER = "192.0.2.3"


def startup_log(own) -> str:
    """Everything the instance wrote to stderr once it has logged event=started (its whole startup)."""
    deadline = time.monotonic() + LOG_WAIT_SECONDS
    while "event=started" not in own.process.stderr_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    return own.process.stderr_text()


def admin_warnings(own) -> list[str]:
    return [line for line in startup_log(own).splitlines() if "event=admin_unavailable" in line]


def test_two_instances_without_an_admin_section_both_run_and_serve(start_ipdirect, network):
    first = start_ipdirect(ConfigAdditions(default_admin=True))
    second = start_ipdirect(ConfigAdditions(default_admin=True))
    for own in (first, second):
        assert fetch(own, network.plain_url(), network.plain_authority()).status == 200
        assert own.is_running()
    # Whoever holds 127.0.0.1:8081 (the first instance, or anything else on this machine), the second cannot.
    warnings = admin_warnings(second)
    assert len(warnings) == 1, startup_log(second)
    assert f"listen={DEFAULT_ADMIN} " in warnings[0]
    assert "Address already in use" in warnings[0]
    assert "set [admin] listen to another address" in warnings[0]
    assert " warning " in warnings[0]


def test_in_a_fresh_network_the_first_instance_gets_the_default_admin_address(netns, namespace_origins,
                                                                              start_ipdirect_in):
    origins = namespace_origins({OTHER: 0.0})
    hosts = {"one.test": [OTHER]}
    first = start_ipdirect_in(hosts, ConfigAdditions(default_admin=True))
    second = start_ipdirect_in(hosts, ConfigAdditions(default_admin=True))
    assert admin_warnings(first) == []
    assert len(admin_warnings(second)) == 1
    assert f"event=admin_listening listen={DEFAULT_ADMIN}" in startup_log(first)
    with netns.entered():
        health = requests.get(f"http://{DEFAULT_ADMIN}/healthz", timeout=ADMIN_TIMEOUT_SECONDS)
    assert (health.status_code, health.text) == (200, "ok\n")
    for own in (first, second):
        answer = NamespaceClient(own).get(f"http://one.test:{origins.port}/")
        assert (answer.status, answer.origin) == (200, OTHER)


@pytest.mark.parametrize("written_as", ["one string", "a list"])
def test_a_taken_admin_address_stops_startup(written_as, tmp_path, network, certificates):
    with socket.socket() as taken:
        taken.bind((LOOPBACK, 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = tmp_path / "taken.toml"
        config.write_text(ipdirect_config_text([f"{LOOPBACK}:0"], network, certificates.ca_file,
                                               admin_listen=(f"{LOOPBACK}:{port}" if written_as == "one string"
                                                             else [f"{LOOPBACK}:{port}"])))
        run = subprocess.run([str(ipdirect_binary()), "run", "--config", str(config)], capture_output=True,
                             text=True, timeout=ADMIN_TIMEOUT_SECONDS)
    assert run.returncode == 1
    assert f"[admin] listen: cannot listen on {LOOPBACK}:{port}: Address already in use" in run.stderr
    assert "event=admin_unavailable" not in run.stderr

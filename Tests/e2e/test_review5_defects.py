"""Reproductions of defects found in the issue-5 review; each fails while the defect is present."""
import signal
import time

import requests

from harness.ipdirect_proxy import ConfigAdditions
from test_systemd_service import service_ipdirect, notify_socket, through, with_host_entry  # noqa: F401

# Both signals land inside one reload (its config read and its wait for the loops take longer than this).
SECOND_SIGHUP_AFTER_SECONDS = 0.002
SETTLE_SECONDS = 0.3
# The window is a few milliseconds wide; a handful of tries hits it.
ATTEMPTS = 10


def test_a_sighup_sent_during_a_reload_is_not_lost(service_ipdirect, notify_socket, network):
    proxy = service_ipdirect(ConfigAdditions(environment={"NOTIFY_SOCKET": notify_socket.environment_value}))
    notify_socket.wait_for("READY")
    original = proxy.config_path.read_text()
    for attempt in range(ATTEMPTS):
        proxy.config_path.write_text(with_host_entry(original, "first.test"))
        proxy.process.popen.send_signal(signal.SIGHUP)
        time.sleep(SECOND_SIGHUP_AFTER_SECONDS)
        proxy.config_path.write_text(with_host_entry(original, "second.test"))
        proxy.process.popen.send_signal(signal.SIGHUP)
        time.sleep(SETTLE_SECONDS)
        # The file on disk when the last SIGHUP was sent must be in force.
        status = through(proxy).get(network.plain_url(name="second.test"), timeout=10).status_code
        assert status == 200, f"attempt {attempt}: {proxy.process.stderr_text()[-1500:]}"


def test_admin_resolve_uses_the_reloaded_hosts(service_ipdirect, notify_socket, network):
    proxy = service_ipdirect(ConfigAdditions(admin=True,
                                             environment={"NOTIFY_SOCKET": notify_socket.environment_value}))
    notify_socket.wait_for("READY")
    proxy.config_path.write_text(with_host_entry(proxy.config_path.read_text(), "added-by-reload.test"))
    mark = len(notify_socket.messages)
    proxy.process.popen.send_signal(signal.SIGHUP)
    notify_socket.wait_for("READY", after=notify_socket.wait_for("RELOADING", after=mark) + 1)
    # The proxy path sees the new [hosts] entry ...
    assert through(proxy).get(network.plain_url(name="added-by-reload.test"), timeout=10).status_code == 200
    # ... and README promises /resolve uses "the same [hosts], cache and sources as a proxied request".
    answer = requests.get(f"http://127.0.0.1:{proxy.admin_port}/resolve?name=added-by-reload.test", timeout=10).json()
    assert answer["Status"] == 0, answer

"""SIGHUP reloads stay consistent: a SIGHUP taken during a reload is answered by one more reload, and the admin
listener's /resolve follows the reloaded [hosts]."""
import signal
import time

import requests

from harness.dns_server import SYSTEM_RESOLVED_NAME
from harness.ipdirect_proxy import ConfigAdditions
from harness.resolution_checks import access_log_lines, log_field
from test_systemd_service import service_ipdirect, notify_socket, through, with_host_entry  # noqa: F401

# Both signals land inside one reload (its config read and its wait for the loops take longer than this).
SECOND_SIGHUP_AFTER_SECONDS = 0.002
SETTLE_SECONDS = 0.3
# The access log is written in batches, at most 200 ms late.
ACCESS_LOG_SECONDS = 5
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
    # ... and docs/operating.md promises /resolve uses "the same [hosts], cache and sources as a proxied request".
    answer = requests.get(f"http://127.0.0.1:{proxy.admin_port}/resolve?name=added-by-reload.test", timeout=10).json()
    assert answer["Status"] == 0, answer


def test_an_open_connection_keeps_the_settings_it_was_accepted_with(service_ipdirect, notify_socket, network):
    # dns.test comes from the system resolver (dnsmasq), so the private-address policy applies to it; the
    # reload turns that policy around and renames the Via pseudonym, and an open connection must keep both old.
    proxy = service_ipdirect(ConfigAdditions(proxy_keys={"via": "before-reload"},
                                             environment={"NOTIFY_SOCKET": notify_socket.environment_value}))
    notify_socket.wait_for("READY")
    url = network.plain_url(name=SYSTEM_RESOLVED_NAME)
    open_connection = through(proxy)
    first = open_connection.get(url, timeout=10)
    assert first.status_code == 200 and "before-reload" in first.headers.get("Via", ""), first.headers

    text = proxy.config_path.read_text()
    assert "allow_private_upstreams = true" in text and 'via = "before-reload"' in text
    proxy.config_path.write_text(text.replace("allow_private_upstreams = true", "allow_private_upstreams = false")
                                 .replace('via = "before-reload"', 'via = "after-reload"'))
    mark = len(notify_socket.messages)
    proxy.process.popen.send_signal(signal.SIGHUP)
    notify_socket.wait_for("READY", after=notify_socket.wait_for("RELOADING", after=mark) + 1)

    kept = open_connection.get(url, timeout=10)
    assert kept.status_code == 200, kept.text
    assert "before-reload" in kept.headers.get("Via", ""), kept.headers
    fresh = through(proxy).get(url, timeout=10)
    assert fresh.status_code == 403, fresh.text
    # An error the proxy makes itself names it in Proxy-Status (RFC 9209) rather than Via.
    assert fresh.headers.get("Proxy-Status", "").startswith("after-reload;"), fresh.headers
    # Both requests of the open connection came on one client connection.
    authority = network.plain_authority(SYSTEM_RESOLVED_NAME)
    deadline = time.monotonic() + ACCESS_LOG_SECONDS
    while len(access_log_lines(proxy, authority)) < 3 and time.monotonic() < deadline:
        time.sleep(SETTLE_SECONDS)
    lines = access_log_lines(proxy, authority)
    assert len(lines) == 3 and log_field(lines[0], "client") == log_field(lines[1], "client"), lines

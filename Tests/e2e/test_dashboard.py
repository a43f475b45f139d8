"""The dashboard on the admin listener, in Debian's headless Chromium: its views follow the JSON endpoints as
they change, names chosen by strangers stay text, the page loads nothing from anywhere else, pages of other
origins can neither read nor change anything, and the page says so when the daemon stops answering.

Screenshots of every view at 1280x800 are saved under `.build/e2e-output/dashboard/` (or `$E2E_OUTPUT_DIR`).
"""

import json
import os
import signal
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests

from harness.chromium import NOT_INSTALLED, chromium_binary
from harness.connect_tunnel import open_connect_tunnel
from harness.devtools_browser import DevtoolsBrowser
from harness.dns_listener import dig, dns_section, listener_port, wait_for_listener
from harness.echo_origin import EchoOrigin
from harness.identity_origins import IdentityOrigins
from harness.ipdirect_proxy import ADMIN_MARKER, ConfigAdditions
from harness.ports import LOOPBACK, free_port
from harness.raw_http import RawConnection
from harness.resolution_checks import start_resolving

ADMIN_TIMEOUT_SECONDS = 10
LONG_TTL = 600
# A name with two loopback addresses, one origin on each, on the same port.
NAME = "ranked.dashboard.test"
FIRST, SECOND = LOOPBACK, "127.0.0.2"
# Names whose text is markup: as the issue writes it (the DNS listener shows its spaces as \032), and one
# with no space that runs a script wherever it is parsed as HTML.
HOSTILE_NAMES = ["<img src=x onerror=alert(1)>.test", "<svg/onload=alert(1)>.test"]
# Another origin than the admin listener's, as any site would be.
FOREIGN_HOST = "127.0.0.3"
# How long a hidden page is watched for polls (three poll intervals), and how soon a shown one must poll (at
# once, but a page just restored may take a moment to run its handlers).
HIDDEN_SECONDS = 6
SHOWN_POLL_SECONDS = 1.5
# How long the admin listener waits for the workers' answer to /connections.
WORKER_ANSWER_SECONDS = 2
# The page polls every 2 s: a change shows within a few polls.
UPDATE_SECONDS = 15
# Long enough for the page's 5 s fetch timeout to call the daemon gone.
DOWN_SECONDS = 20
# Requests through the proxy that the spread balance sends in turn to both addresses.
WARM_UP_REQUESTS = 4
# Requests after the second origin stopped: spread sends every other one to it.
REQUESTS_UNTIL_QUARANTINE = 6
SCREENSHOT_DIR = Path(os.environ.get("E2E_OUTPUT_DIR", Path(__file__).resolve().parents[2] / ".build" / "e2e-output")) / "dashboard"


@pytest.fixture
def browser(tmp_path):
    if chromium_binary() is None:
        pytest.skip(NOT_INSTALLED)
    with DevtoolsBrowser(tmp_path / "browser") as browser:
        yield browser


@pytest.fixture
def origins():
    """An origin on each of NAME's addresses, on one port, each answering with its address."""
    started = IdentityOrigins(None, {FIRST: 0.0, SECOND: 0.0})
    yield started
    started.stop()


@pytest.fixture
def echo():
    with EchoOrigin() as origin:
        yield origin


@pytest.fixture
def own(provider_setup, start_ipdirect, echo):
    """An ipdirect with its admin listener, a DNS listener, the query log, NAME on two addresses taken in turn,
    and CONNECT allowed to the echo origin's port."""
    setup = provider_setup("json-google")
    setup.set_addresses(NAME, a=(FIRST, SECOND), ttl=LONG_TTL)
    dns_port = listener_port()
    sections = dns_section(dns_port) + '\n[upstream]\nbalance = "spread"\nquarantine = 60\n'
    own = start_resolving(start_ipdirect, setup, extra_sections=sections, admin=True,
                          access_keys={"connect_ports": [echo.port]})
    wait_for_listener(dns_port)
    own.dns_port = dns_port
    return own


def admin_json(own, path: str):
    response = requests.get(own.admin_url(path), timeout=ADMIN_TIMEOUT_SECONDS)
    assert response.status_code == 200, response.text
    assert response.headers["Cache-Control"] == "no-store"
    return response.json()


def fetch_through(own, port: int) -> None:
    response = requests.get(f"http://{NAME}:{port}/", proxies={"http": own.url}, timeout=ADMIN_TIMEOUT_SECONDS)
    assert response.status_code == 200, response.text


def upstream_order(own, port: int) -> list[tuple[str, str]]:
    """(address, state) of NAME's addresses, in /upstreams order."""
    for host in admin_json(own, "/upstreams")["hosts"]:
        if host["host"] == NAME and host["port"] == port:
            return [(address["address"], address["state"]) for address in host["addresses"]]
    return []


def page_order(page, port: int) -> list[tuple[str, str]]:
    rows = page.evaluate(f"""Array.from(document.querySelectorAll('tr[data-host="{NAME}:{port}"]'))
                             .map(row => [row.dataset.address, row.dataset.state])""")
    return [tuple(row) for row in rows]


def wait_until_page_shows(page, own, port: int, what: str) -> list[tuple[str, str]]:
    """Waits until the page's rows for NAME are /upstreams' rows, in its order and states."""
    deadline = time.monotonic() + UPDATE_SECONDS
    while True:
        expected = upstream_order(own, port)
        shown = page_order(page, port)
        if expected and shown == expected:
            return shown
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: the page shows {shown}, /upstreams says {expected}")
        time.sleep(0.3)


def save_screenshot(page, name: str) -> None:
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    page.screenshot(SCREENSHOT_DIR / f"{name}.png")


def assert_nothing_ran(page) -> None:
    assert page.dialogs == [], page.dialogs
    assert page.exceptions == [], page.exceptions
    assert page.console_errors == [], page.console_errors


def test_the_upstreams_view_follows_the_ranking_and_shows_a_quarantine_without_a_reload(own, origins, browser):
    port = origins.port
    for _ in range(WARM_UP_REQUESTS):
        fetch_through(own, port)
    page = browser.open(own.admin_url("/ui/upstreams"))
    shown = wait_until_page_shows(page, own, port, "both addresses healthy")
    assert {address for address, _ in shown} == {FIRST, SECOND}
    assert all(state == "healthy" for _, state in shown), shown

    origins.origins[SECOND].stop()
    for _ in range(REQUESTS_UNTIL_QUARANTINE):
        fetch_through(own, port)
        if dict(upstream_order(own, port)).get(SECOND) == "quarantined":
            break
    assert dict(upstream_order(own, port)).get(SECOND) == "quarantined", upstream_order(own, port)
    shown = wait_until_page_shows(page, own, port, "after the second address was quarantined")
    assert dict(shown) == {FIRST: "healthy", SECOND: "quarantined"}
    row_text = page.evaluate(f"""document.querySelector('tr[data-host="{NAME}:{port}"][data-address="{SECOND}"]').textContent""")
    assert "refused" in row_text.lower(), row_text
    save_screenshot(page, "upstreams")
    assert_nothing_ran(page)


def test_a_live_tunnel_is_listed_until_it_ends_and_the_close_button_closes_one(own, echo, browser):
    authority = f"{LOOPBACK}:{echo.port}"
    first = open_connect_tunnel(own.address, authority, ADMIN_TIMEOUT_SECONDS)
    first.sendall(b"ping")
    assert first.recv(4) == b"ping"
    listed = [row for row in admin_json(own, "/connections")["connections"] if row["authority"] == authority]
    assert len(listed) == 1 and listed[0]["mode"] == "connect" and listed[0]["phase"] == "tunneling", listed
    first_id = listed[0]["id"]

    page = browser.open(own.admin_url("/ui/connections"))
    selector = f'tr[data-id="{first_id}"]'
    page.wait_for(f"""(() => {{ const row = document.querySelector('{selector}');
                                return row && row.dataset.mode === 'connect' && !row.dataset.closed
                                       && row.textContent.includes('{authority}'); }})()""",
                  timeout=UPDATE_SECONDS, what="the live tunnel listed")
    save_screenshot(page, "connections")

    first.close()
    page.wait_for(f"""(() => {{ const row = document.querySelector('{selector}');
                                return row && row.dataset.closed === 'true' && !row.querySelector('button'); }})()""",
                  timeout=UPDATE_SECONDS, what="the ended tunnel shown greyed as closed")

    second = open_connect_tunnel(own.address, authority, ADMIN_TIMEOUT_SECONDS)
    second.settimeout(UPDATE_SECONDS)
    page.wait_for(f"""document.querySelectorAll('tr[data-mode="connect"]:not([data-closed="true"]) button').length === 1""",
                  timeout=UPDATE_SECONDS, what="the second tunnel's close button")
    page.evaluate("""document.querySelector('tr[data-mode="connect"]:not([data-closed="true"]) button').click()""")
    assert second.recv(1) == b"", "the tunnel stayed open after its close button was clicked"
    second.close()
    assert own.wait_for_access_log("closed through the admin API")
    assert "event=connection_closed_by_operator" in own.process.stderr_text()
    assert_nothing_ran(page)


@pytest.mark.parametrize("hostile", HOSTILE_NAMES)
def test_a_query_name_made_of_markup_is_shown_as_text_and_runs_nothing(own, browser, hostile):
    dig(own.dns_port, hostile)
    queries = admin_json(own, "/queries")["queries"]
    logged = [entry["name"] for entry in queries if "onerror" in entry["name"] or "onload" in entry["name"]]
    assert logged, queries
    page = browser.open(own.admin_url("/ui/queries"))
    page.wait_for(f"""Array.from(document.querySelectorAll('tr[data-name]'))
                         .some(row => row.textContent.includes({logged[0]!r}))""",
                  timeout=UPDATE_SECONDS, what="the hostile name listed as text")
    made = page.evaluate("""Array.from(document.querySelectorAll('#view *'))
                                .filter(element => ['IMG', 'SVG', 'svg'].includes(element.tagName)
                                                   || element.tagName.startsWith('IMG')).length""")
    assert made == 0
    if hostile == HOSTILE_NAMES[0]:
        save_screenshot(page, "queries")
    assert_nothing_ran(page)


def test_every_view_loads_nothing_but_the_admin_listener(own, browser):
    origin = own.admin_url("")
    views = ["/ui", "/ui/upstreams", "/ui/connections", "/ui/queries", "/ui/cache", "/ui/overview"]
    for view in views:
        page = browser.open(own.admin_url(view))
        page.wait_for("document.getElementById('status').dataset.state === 'ok'", timeout=UPDATE_SECONDS,
                      what=f"{view} loaded its data")
        if view in ("/ui/cache", "/ui/overview"):
            if view == "/ui/overview":
                # The charts need two samples of /metrics.
                time.sleep(5)
            save_screenshot(page, view.rsplit("/", 1)[-1])
        foreign = [url for url in page.requested_urls if not url.startswith(origin + "/")]
        assert foreign == [], foreign
        assert_nothing_ran(page)
        page.close()


def test_pages_are_served_with_a_strict_policy_and_never_to_another_origin(own):
    page = requests.get(own.admin_url("/ui/upstreams"), timeout=ADMIN_TIMEOUT_SECONDS)
    assert page.status_code == 200
    assert page.headers["Content-Type"] == "text/html; charset=utf-8"
    policy = page.headers["Content-Security-Policy"]
    for directive in ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
                      "frame-ancestors 'none'"]:
        assert directive in policy, policy
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    assert page.headers["Referrer-Policy"] == "no-referrer"
    for path in ["/ui/upstreams", "/ui/app.js", "/connections", "/upstreams"]:
        response = requests.get(own.admin_url(path), headers={"Origin": "http://evil.example"},
                                timeout=ADMIN_TIMEOUT_SECONDS)
        assert not any(name.lower().startswith("access-control-allow") for name in response.headers), response.headers
    rebound = requests.get(own.admin_url("/ui"), headers={"Host": "evil.example"}, timeout=ADMIN_TIMEOUT_SECONDS)
    assert rebound.status_code == 421
    forged = requests.post(own.admin_url("/connections/close?id=1"),
                           headers={**ADMIN_MARKER, "Origin": "http://evil.example"}, timeout=ADMIN_TIMEOUT_SECONDS)
    assert forged.status_code == 403


class _ForeignPage(BaseHTTPRequestHandler):
    """A page of another origin that tries to read the admin listener and to flush its cache."""

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        if self.path == "/attack.js":
            body = ATTACK_SCRIPT.replace("ADMIN", self.server.admin_origin).encode()
            kind = "text/javascript"
        else:
            body = b'<!doctype html><title>elsewhere</title><p id="result">pending</p><script src="/attack.js"></script>'
            kind = "text/html"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


ATTACK_SCRIPT = """
const outcomes = [];
async function attempt(label, request) {
  try { const response = await request(); outcomes.push(label + ':read:' + (await response.text()).length); }
  catch (error) { outcomes.push(label + ':refused'); }
}
(async () => {
  await attempt('connections', () => fetch('ADMIN/connections'));
  await attempt('cache', () => fetch('ADMIN/cache'));
  await attempt('flush', () => fetch('ADMIN/cache/flush', {method: 'POST', headers: {'X-IPDirect-Admin': '1'}}));
  await attempt('blind-flush', () => fetch('ADMIN/cache/flush', {method: 'POST', mode: 'no-cors'}));
  document.getElementById('result').textContent = outcomes.join(' ');
})();
"""


def test_a_page_of_another_origin_can_neither_read_nor_change_anything(own, browser):
    requests.get(own.admin_url(f"/resolve?name={NAME}"), timeout=ADMIN_TIMEOUT_SECONDS)
    cached = admin_json(own, "/cache")["size"]
    assert cached > 0
    server = ThreadingHTTPServer((FOREIGN_HOST, 0), _ForeignPage)
    server.admin_origin = own.admin_url("")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page = browser.open(f"http://{FOREIGN_HOST}:{server.server_address[1]}/")
        result = page.wait_for("document.getElementById('result').textContent !== 'pending' && "
                               "document.getElementById('result').textContent", timeout=UPDATE_SECONDS,
                               what="the foreign page's attempts")
    finally:
        server.shutdown()
        server.server_close()
    assert result.split() == ["connections:refused", "cache:refused", "flush:refused", "blind-flush:read:0"], result
    assert admin_json(own, "/cache")["size"] == cached
    assert "reason=foreign_origin" in own.process.stderr_text() or "reason=missing_marker" in own.process.stderr_text()


@pytest.mark.parametrize("path, status, says", [
    ("/ui/nonsense", 404, "no view named"),
    ("/ui/queries?limit=x", 400, "take no query"),
])
def test_a_wrong_address_gets_a_page_that_says_what_is_wrong(own, browser, path, status, says):
    response = requests.get(own.admin_url(path), timeout=ADMIN_TIMEOUT_SECONDS)
    assert response.status_code == status
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert says in response.text
    page = browser.open(own.admin_url(path))
    assert says in page.evaluate("document.body.textContent")
    bad = requests.get(own.admin_url("/connections?limit=x"), timeout=ADMIN_TIMEOUT_SECONDS)
    assert bad.status_code == 400 and "limit" in bad.text


def test_the_page_says_when_the_daemon_stops_answering_and_recovers(own, browser):
    page = browser.open(own.admin_url("/ui/upstreams"))
    page.wait_for("document.getElementById('status').dataset.state === 'ok'", timeout=UPDATE_SECONDS,
                  what="the first update")
    os.kill(own.pid, signal.SIGSTOP)
    try:
        text = page.wait_for("document.getElementById('status').dataset.state === 'down' && "
                             "document.getElementById('status').textContent", timeout=DOWN_SECONDS,
                             what="the page saying the daemon stopped answering")
        assert "not answering" in text, text
    finally:
        os.kill(own.pid, signal.SIGCONT)
    page.wait_for("document.getElementById('status').dataset.state === 'ok'", timeout=DOWN_SECONDS,
                  what="the page recovering")


def test_the_page_stops_polling_while_its_tab_is_hidden_and_polls_at_once_when_shown(own, browser):
    page = browser.open(own.admin_url("/ui/connections"))
    page.wait_for("document.getElementById('status').dataset.state === 'ok'", timeout=UPDATE_SECONDS,
                  what="the first update")
    page.set_hidden(True)
    polls_when_hidden = polls_of(page, "/connections")
    time.sleep(HIDDEN_SECONDS)
    assert polls_of(page, "/connections") == polls_when_hidden, "the page polled while its tab was hidden"
    page.set_hidden(False)
    deadline = time.monotonic() + SHOWN_POLL_SECONDS
    while polls_of(page, "/connections") == polls_when_hidden:
        assert time.monotonic() < deadline, "the page did not poll when its tab was shown again"
        time.sleep(0.1)


def polls_of(page, path: str) -> int:
    return sum(1 for url in page.requested_urls if url.split("?", 1)[0].endswith(path))


def test_ui_false_removes_the_dashboard_and_keeps_the_endpoints(start_ipdirect):
    own = start_ipdirect(ConfigAdditions(admin=True, admin_keys={"ui": False}))
    assert requests.get(own.admin_url("/ui"), timeout=ADMIN_TIMEOUT_SECONDS).status_code == 404
    assert requests.get(own.admin_url("/ui/app.js"), timeout=ADMIN_TIMEOUT_SECONDS).status_code == 404
    assert requests.get(own.admin_url("/connections"), timeout=ADMIN_TIMEOUT_SECONDS).status_code == 200


def test_requests_behind_a_connections_poll_are_answered_in_order(own, echo):
    tunnel = open_connect_tunnel(own.address, f"{LOOPBACK}:{echo.port}", ADMIN_TIMEOUT_SECONDS)
    host = f"Host: {LOOPBACK}:{own.admin_port}\r\n"
    with RawConnection((LOOPBACK, own.admin_port), timeout=ADMIN_TIMEOUT_SECONDS) as admin:
        admin.send((f"GET /connections HTTP/1.1\r\n{host}\r\n"
                    f"HEAD /connections HTTP/1.1\r\n{host}\r\n"
                    f"GET /healthz HTTP/1.1\r\n{host}Connection: close\r\n\r\n").encode())
        listed = admin.read_response()
        headed = admin.read_response("HEAD")
        health = admin.read_response()
    tunnel.close()
    assert listed.status == 200 and json.loads(listed.body)["total"] >= 1, listed.describe()
    assert headed.status == 200 and headed.body == b"" and int(headed.header("Content-Length")) > 0, headed.describe()
    assert health.status == 200 and health.text == "ok\n", health.describe()


@pytest.mark.parametrize("session_id", [
    1,                      # worker 0 holds no session numbered 1 any more: asked, and answers no
    (0xFFFF << 48) | 1,     # no worker 65535: answered without asking any
])
def test_closing_a_connection_that_does_not_exist_is_404(own, session_id):
    response = requests.post(own.admin_url(f"/connections/close?id={session_id}"), headers=ADMIN_MARKER,
                             timeout=ADMIN_TIMEOUT_SECONDS)
    assert response.status_code == 404
    assert f"no connection with id {session_id}" in response.text


def test_a_client_that_leaves_during_a_poll_gets_its_slots_back(own):
    """Each of these closes before its answer: once the workers have answered, the connection ends, so the
    client's 16 admin connections are free again within the workers' deadline."""
    for _ in range(20):
        with socket.create_connection((LOOPBACK, own.admin_port), timeout=ADMIN_TIMEOUT_SECONDS) as leaving:
            leaving.sendall(f"GET /connections HTTP/1.1\r\nHost: {LOOPBACK}:{own.admin_port}\r\n\r\n".encode())
    deadline = time.monotonic() + WORKER_ANSWER_SECONDS + 1
    while (answer := requests.get(own.admin_url("/healthz"), timeout=ADMIN_TIMEOUT_SECONDS)).status_code != 200:
        assert time.monotonic() < deadline, answer.text
        time.sleep(0.1)
    assert answer.text == "ok\n"
    assert admin_json(own, "/connections")["total"] == 0

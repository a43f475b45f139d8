"""/proxy.pac on the proxy listener: evaluated by a real PAC engine (pacparser), and used by headless
Chromium (`--proxy-pac-url`) to load a page from the test nginx through ipdirect."""

import time

import pacparser
import pytest
import requests

from harness import chromium
from harness.ipdirect_proxy import ConfigAdditions
from harness.nginx_origin import STATIC_PAGE_TEXT
from harness.ports import LOOPBACK
from harness.resolution_checks import access_log_lines

PAC_TYPE = "application/x-ns-proxy-autoconfig"
DIRECT_PATTERNS = ["*.corp.example", "intranet?.example"]
REQUEST_TIMEOUT_SECONDS = 10
# The access log is written in batches, at most 200 ms late.
ACCESS_LOG_SECONDS = 5


@pytest.fixture
def own(start_ipdirect):
    return start_ipdirect(ConfigAdditions(pac_keys={"direct": DIRECT_PATTERNS}))


def pac_text(host: str, port: int) -> str:
    """The PAC file as a browser fetches it: directly from the listener, never through a proxy."""
    with requests.Session() as session:
        session.trust_env = False
        response = session.get(f"http://{host}:{port}/proxy.pac", timeout=REQUEST_TIMEOUT_SECONDS)
    assert response.status_code == 200
    assert response.headers["Content-Type"] == PAC_TYPE
    return response.text


def find_proxy(script: str, url: str, host: str) -> str:
    pacparser.init()
    try:
        pacparser.parse_pac_string(script)
        return pacparser.find_proxy(url, host)
    finally:
        pacparser.cleanup()


@pytest.mark.parametrize("url, host, direct", [
    ("http://www.example.com/", "www.example.com", False),
    ("https://api.example.org:8443/x", "api.example.org", False),
    ("http://93.184.216.34/", "93.184.216.34", False),
    ("http://[2001:db8::1]/", "2001:db8::1", False),
    ("http://192.168.1.10/", "192.168.1.10", True),
    ("http://10.20.30.40:8080/", "10.20.30.40", True),
    ("http://172.20.0.1/", "172.20.0.1", True),
    ("http://127.0.0.1:9000/", "127.0.0.1", True),
    ("http://[::1]/", "::1", True),
    ("http://[fd00::5]/", "fd00::5", True),
    ("http://intranet/", "intranet", True),
    ("http://localhost:3000/", "localhost", True),
    ("http://printer.local/", "printer.local", True),
    ("http://build.corp.example/", "build.corp.example", True),
    ("http://intranet7.example/", "intranet7.example", True),
    ("http://corp.example/", "corp.example", False),
])
def test_pac_engine_sends_public_hosts_to_the_proxy_and_private_ones_direct(own, url, host, direct):
    script = pac_text(LOOPBACK, own.port)
    expected = "DIRECT" if direct else f"PROXY {LOOPBACK}:{own.port}"
    assert find_proxy(script, url, host) == expected


def test_pac_names_the_listener_the_request_came_in_on(own):
    if own.ipv6_port is None:
        pytest.skip("this machine has no ::1 to listen on")
    script = pac_text("[::1]", own.ipv6_port)
    assert find_proxy(script, "http://www.example.com/", "www.example.com") == f"PROXY [::1]:{own.ipv6_port}"


def test_head_and_keep_alive_and_other_paths(own):
    with requests.Session() as session:
        session.trust_env = False
        head = session.head(f"http://{LOOPBACK}:{own.port}/proxy.pac", timeout=REQUEST_TIMEOUT_SECONDS)
        assert head.status_code == 200 and head.content == b"" and int(head.headers["Content-Length"]) > 0
        with_query = session.get(f"http://{LOOPBACK}:{own.port}/proxy.pac?v=1", timeout=REQUEST_TIMEOUT_SECONDS)
        assert "FindProxyForURL" in with_query.text
        other = session.get(f"http://{LOOPBACK}:{own.port}/other.pac", timeout=REQUEST_TIMEOUT_SECONDS)
        assert other.status_code == 400, "only /proxy.pac is served in origin-form"
        posted = session.post(f"http://{LOOPBACK}:{own.port}/proxy.pac", timeout=REQUEST_TIMEOUT_SECONDS)
        assert posted.status_code == 400


def test_headless_chromium_loads_a_page_through_ipdirect_by_pac(own, network, tmp_path):
    browser = chromium.chromium_binary()
    if browser is None:
        pytest.skip(chromium.NOT_INSTALLED)
    completed = chromium.dump_dom(browser, f"--proxy-pac-url=http://{LOOPBACK}:{own.port}/proxy.pac",
                                  network.plain_url("/static/page.html"), tmp_path)
    assert STATIC_PAGE_TEXT.splitlines()[0] in completed.stdout, chromium.describe(completed)
    authority = network.plain_authority()
    deadline = time.monotonic() + ACCESS_LOG_SECONDS
    while not (lines := [line for line in access_log_lines(own, authority) if " status=200 " in line]):
        assert time.monotonic() < deadline, \
            f"ipdirect's access log has no request for {authority}:\n{own.access_log_since_mark()}"
        time.sleep(0.05)
    assert " method=GET " in lines[0]

"""/proxy.pac on the proxy listener: evaluated by a real PAC engine (pacparser), and used by headless
Chromium (`--proxy-pac-url`) to load a page from the test nginx through ipdirect; with `[pac] socks = true` the
file offers the same port as SOCKS5 first, and Chromium takes the page through a SOCKS5 tunnel."""

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


# URL, host, and whether the PAC file sends it DIRECT.
PAC_CASES = [
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
]


@pytest.mark.parametrize("url, host, direct", PAC_CASES)
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


# [pac] socks = true: the same listener offered as SOCKS5 first, HTTP after it ----------------------------------
@pytest.fixture
def socks_pac(start_ipdirect, network):
    """PAC with SOCKS and the same direct patterns; tunnels (SOCKS ones included) may reach nginx's plain port
    too."""
    return start_ipdirect(ConfigAdditions(pac_keys={"socks": True, "direct": DIRECT_PATTERNS},
                                          access_keys={"connect_ports": network.connect_ports +
                                                       [network.nginx_http_port]}))


@pytest.mark.parametrize("url, host, direct", PAC_CASES)
def test_pac_with_socks_offers_socks5_then_proxy_on_the_same_port(socks_pac, url, host, direct):
    script = pac_text(LOOPBACK, socks_pac.port)
    both = f"SOCKS5 {LOOPBACK}:{socks_pac.port}; PROXY {LOOPBACK}:{socks_pac.port}"
    assert both in script
    assert find_proxy(script, url, host) == ("DIRECT" if direct else both)


@pytest.mark.parametrize("socks", [False, True], ids=["proxy", "socks5"])
def test_headless_chromium_loads_a_page_through_ipdirect_by_pac(request, network, tmp_path, socks):
    browser = chromium.chromium_binary()
    if browser is None:
        pytest.skip(chromium.NOT_INSTALLED)
    own = request.getfixturevalue("socks_pac" if socks else "own")
    completed = chromium.dump_dom(browser, f"--proxy-pac-url=http://{LOOPBACK}:{own.port}/proxy.pac",
                                  network.plain_url("/static/page.html"), tmp_path)
    assert STATIC_PAGE_TEXT.splitlines()[0] in completed.stdout, chromium.describe(completed)
    # With SOCKS offered first, the page comes through a SOCKS5 tunnel; without it, as an HTTP proxy request.
    method, other = ("SOCKS5", "GET") if socks else ("GET", "SOCKS5")
    authority = network.plain_authority()
    own.wait_for_access_log(f" method={method} ", f" target={authority} ", " status=200 ",
                            timeout=ACCESS_LOG_SECONDS)
    assert not [line for line in access_log_lines(own, authority) if f" method={other} " in line]

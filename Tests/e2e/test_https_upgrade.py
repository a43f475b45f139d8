"""`[upstream] https_upgrade`: a plain `http://` request for a host matching a rule goes upstream over TLS, to the
port the rule names, with the same verification as an `https://` request; other hosts stay plain HTTP.

Rules are an exact host name or `*.` plus a name, which matches any subdomain but not the bare name.
"""

import pytest

from harness.certificates import OTHER_HOST_NAME, WRONG_HOST_NAME
from harness.nginx_origin import INDEX_TEXT
from harness.ports import LOOPBACK
from harness.tls_origination import CERTIFICATE_ERROR, OriginPage, assert_tls_failure, fetch, tls_origination_additions

UPGRADED_HOSTS = ["a.test", "b.test", "api.example.test"]


def start_upgrading_proxy(start_ipdirect, network):
    port = network.nginx_https_port
    rules = [f"a.test:{port}", f"*.example.test:{port}", f"b.test:{port}", f"{WRONG_HOST_NAME}:{port}"]
    return start_ipdirect(tls_origination_additions(https_upgrade=rules))


@pytest.mark.parametrize("name", UPGRADED_HOSTS)
def test_a_plain_http_request_for_an_upgraded_host_reaches_its_virtual_host_over_tls(start_ipdirect, network,
                                                                                    name):
    own = start_upgrading_proxy(start_ipdirect, network)
    page = OriginPage.parse(fetch(own.address, f"http://{name}/", name))
    assert (page.vhost, page.sni) == (name, name), page
    own.wait_for_access_log("GET", name, "status=200")


def test_an_upgraded_host_with_a_wrong_certificate_gives_502_and_never_the_page(start_ipdirect, network):
    own = start_upgrading_proxy(start_ipdirect, network)
    response = fetch(own.address, f"http://{WRONG_HOST_NAME}/", WRONG_HOST_NAME)
    assert_tls_failure(response, WRONG_HOST_NAME, f"{LOOPBACK}:{network.nginx_https_port}", CERTIFICATE_ERROR,
                       (("hostname mismatch",), (OTHER_HOST_NAME,)))


def test_a_wildcard_rule_leaves_the_bare_name_on_plain_http(start_ipdirect, network):
    own = start_upgrading_proxy(start_ipdirect, network)
    response = fetch(own.address, network.plain_url("/", "example.test"), network.plain_authority("example.test"))
    assert response.status == 200, response.describe()
    assert response.text == INDEX_TEXT


def test_a_host_without_a_rule_stays_on_plain_http(start_ipdirect, network):
    own = start_upgrading_proxy(start_ipdirect, network)
    response = fetch(own.address, network.plain_url("/echo"), network.plain_authority())
    assert response.status == 200, response.describe()
    assert response.text.startswith(f"host={network.plain_authority()} ")

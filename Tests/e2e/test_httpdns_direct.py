"""ipdirect's own resolver traffic never goes through a proxy: `http_proxy` / `https_proxy` in its environment
(as a desktop session or a systemd `Environment=` may set them) must not route HTTPDNS queries anywhere."""

import dataclasses

from harness.ports import LOOPBACK
from harness.resolution_checks import fetch, start_resolving

# Nothing listens on port 1: a client that honoured these variables would fail every query.
DEAD_PROXY = f"http://{LOOPBACK}:1"
PROXY_VARIABLES = {name: DEAD_PROXY for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY",
                                                   "all_proxy", "ALL_PROXY")}


def test_httpdns_queries_ignore_proxy_environment_variables(provider_setup, start_ipdirect, network):
    for kind in ("json-google", "unbound-get"):
        setup = provider_setup(kind)
        name = f"direct.{kind}.test"
        setup.set_addresses(name, a=(LOOPBACK,))
        proxied = dataclasses.replace(setup, environment={**setup.environment, **PROXY_VARIABLES})
        proxy = start_resolving(start_ipdirect, proxied)

        response = fetch(proxy, network.plain_url("/echo", name), network.plain_authority(name))

        assert response.status == 200, response.describe()
        assert setup.queries(name, "A") == 1
        proxy.wait_for_access_log(f" target={network.plain_authority(name)} ", f" source={kind} ")

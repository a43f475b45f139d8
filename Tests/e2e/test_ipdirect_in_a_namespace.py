"""ipdirect, any version, run inside a test's network namespace by the harness of the scheduling tests: it
listens inside, reaches origins inside by [hosts] names, resolves through the HTTPDNS stub inside, tunnels and
originates TLS there. Nothing here needs issue 9's features, so a failure here is the harness's, not the
feature's."""

from harness.ipdirect_proxy import ConfigAdditions
from harness.namespace_client import NamespaceClient
from harness.resolver_config import HttpdnsProvider, httpdns_sections

OTHER = "192.0.2.3"


def test_ipdirect_runs_inside_the_namespace_and_reaches_its_origins(netns, namespace_origins, start_ipdirect_in):
    origins = namespace_origins({OTHER: 0.0})
    own = start_ipdirect_in({"one.test": [OTHER]}, ConfigAdditions(admin=True))
    client = NamespaceClient(own)
    answer = client.get(f"http://one.test:{origins.port}/")
    assert (answer.status, answer.origin) == (200, OTHER)
    own.wait_for_access_log(f" target=one.test:{origins.port} ", f" upstream={OTHER}:{origins.port} ")
    assert client.admin_get("/metrics").status_code == 200
    tunnel = NamespaceClient(start_ipdirect_in({"one.test": [OTHER]}, ConfigAdditions(),
                                               connect_ports=(origins.port,)))
    answer = tunnel.get_through_tunnel(f"one.test:{origins.port}")
    assert (answer.status, answer.origin) == (200, OTHER)


def test_ipdirect_inside_resolves_through_the_stub_inside(netns, namespace_origins, namespace_httpdns_stub,
                                                          start_ipdirect_in):
    origins = namespace_origins({OTHER: 0.0})
    namespace_httpdns_stub.set_record("stub.test", a=(OTHER,), ttl=2)
    provider = HttpdnsProvider("stub", "json", namespace_httpdns_stub.url("json-google"),
                               [namespace_httpdns_stub.bootstrap])
    own = start_ipdirect_in({}, ConfigAdditions(resolver_keys={"order": ["httpdns"], "min_ttl": 0},
                                                sections=httpdns_sections(provider)))
    answer = NamespaceClient(own).get(f"http://stub.test:{origins.port}/")
    assert (answer.status, answer.origin) == (200, OTHER)
    assert namespace_httpdns_stub.count("json", "stub.test", "A") >= 1


def test_a_tls_origin_inside_is_reached_by_ipdirects_tls_origination(netns, namespace_origins, start_ipdirect_in,
                                                                     certificates, tmp_path):
    certificate = certificates.issue(tmp_path / "certificate", "tls-origin", "tls.one.test")
    origins = namespace_origins({OTHER: 0.0}, certificate=certificate)
    own = start_ipdirect_in({"tls.one.test": [OTHER]}, ConfigAdditions())
    authority = f"tls.one.test:{origins.port}"
    answer = NamespaceClient(own).get_absolute(f"https://{authority}/", authority)
    assert (answer.status, answer.origin) == (200, OTHER)

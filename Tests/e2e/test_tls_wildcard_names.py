"""Wildcard certificates under TLS origination: ipdirect verifies the name the client asked for, and a `*` in a
certificate's DNS name stands for exactly one whole left-most label (RFC 9525 §6.3). A partial wildcard
(`f*.example.test`), a wildcard past the first label, and any wildcard against an IP literal never match.

Each case has an HTTPS origin of its own presenting a certificate from the test CA whose only names are the DNS
names given; the requested names all resolve to loopback through the proxy's static hosts.
"""

from dataclasses import dataclass

import pytest

from harness.ports import LOOPBACK
from harness.static_origin import StaticOrigin
from harness.tls_origination import CERTIFICATE_ERROR, assert_tls_failure, fetch

PAGE_TEXT = "served by the wildcard origin\n"
# What OpenSSL says when no name of the certificate matches (verify results 62 and 64).
NAME_MISMATCH = (("hostname mismatch", "IP address mismatch"),)


@dataclass(frozen=True)
class WildcardCase:
    certificate_names: tuple[str, ...]
    requested: str
    accepted: bool

    def __str__(self) -> str:
        verdict = "accepted" if self.accepted else "refused"
        return f"{'+'.join(self.certificate_names)}-for-{self.requested}-{verdict}"


CASES = [
    WildcardCase(("*.example.test",), "a.example.test", accepted=True),
    WildcardCase(("*.example.test",), "a.b.example.test", accepted=False),
    WildcardCase(("*.example.test",), "example.test", accepted=False),
    WildcardCase(("f*.example.test",), "foo.example.test", accepted=False),
    WildcardCase(("*.*.example.test",), "a.b.example.test", accepted=False),
    # An IP literal is checked against iPAddress names only; "127" must not fill the wildcard.
    WildcardCase(("*.0.0.1",), LOOPBACK, accepted=False),
]


@pytest.fixture
def origin_presenting(tmp_path, certificates):
    """`origin_presenting(names)` starts an HTTPS origin whose certificate carries exactly `names`."""
    started = []

    def start(names: tuple[str, ...]) -> StaticOrigin:
        root = tmp_path / f"root-{len(started)}"
        root.mkdir()
        (root / "index.html").write_text(PAGE_TEXT)
        certificate = certificates.issue_verbatim(tmp_path / "certificates", f"wildcard-{len(started)}", *names)
        origin = StaticOrigin(root, certificate).start()
        started.append(origin)
        return origin

    yield start
    for origin in started:
        origin.stop()


@pytest.mark.parametrize("case", CASES, ids=str)
def test_a_wildcard_certificate_matches_exactly_one_whole_left_most_label(proxy, origin_presenting, case):
    origin = origin_presenting(case.certificate_names)
    response = fetch(proxy.address, origin.url(case.requested), origin.authority(case.requested))
    if case.accepted:
        assert response.status == 200 and response.text == PAGE_TEXT, response.describe()
        assert origin.paths == ["/"], origin.paths
    else:
        assert_tls_failure(response, case.requested, f"{LOOPBACK}:{origin.port}", CERTIFICATE_ERROR, NAME_MISMATCH)
        assert origin.paths == [], f"a request reached the origin over an unverified connection: {origin.paths}"

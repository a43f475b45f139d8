"""The certificate the loopback resolvers (unbound, dnsdist, the HTTPDNS stub over TLS) present.

Issued at test time by the same test CA the proxy is told to trust (`[tls] ca_file`, or a provider's
`ca_file`), so a resolver is verified exactly like an origin: by the name in the provider's URL.
"""

from pathlib import Path

from .certificates import CertificatePair, OriginCertificates
from .ports import LOOPBACK

# The host names in the resolvers' URLs. None is ever looked up: ipdirect reaches each through its
# `bootstrap` address, curl through `--resolve`.
UNBOUND_HOST_NAME = "doh.test"
DNSDIST_HOST_NAME = "dnsdist.test"
HTTPDNS_STUB_HOST_NAME = "httpdns.test"
RESOLVER_HOST_NAMES = (UNBOUND_HOST_NAME, DNSDIST_HOST_NAME, HTTPDNS_STUB_HOST_NAME)
FILE_STEM = "resolvers"


def issue_doh_certificate(certificates: OriginCertificates, directory: Path) -> CertificatePair:
    """One leaf naming every resolver host and 127.0.0.1 (for a provider URL that names the address)."""
    return certificates.issue(directory, FILE_STEM, *RESOLVER_HOST_NAMES, LOOPBACK)

"""The names the loopback resolvers (unbound, dnsdist in front of it, the HTTPDNS stub) answer at start.

None is in the proxy's static hosts or known to dnsmasq, so ipdirect can only learn them over HTTPDNS. Every
address is loopback: a proxy that resolves them right reaches the test origins.
"""

from .httpdns_state import StubRecord
from .ports import LOOPBACK
from .unbound_doh import Record

IPV6_LOOPBACK = "::1"
# A and AAAA, both loopback.
RESOLVED_NAME = "resolved.test"
RESOLVED_TTL = 60
# A only: an AAAA query gets NOERROR without addresses.
IPV4_ONLY_NAME = "v4only.test"
# unbound: a CNAME to another name of the chain zone, both in the answer (see unbound_doh).
CHAIN_NAME = "www.chain.test"
CHAIN_TARGET = "edge.chain.test"
CHAIN_CNAME_TTL = 300
CHAIN_TARGET_TTL = 45
# The stub: a CNAME to RESOLVED_NAME.
ALIAS_NAME = "alias.test"
ALIAS_TTL = 300

UNBOUND_RECORDS = [
    Record(RESOLVED_NAME, "A", LOOPBACK, RESOLVED_TTL),
    Record(RESOLVED_NAME, "AAAA", IPV6_LOOPBACK, RESOLVED_TTL),
    Record(IPV4_ONLY_NAME, "A", LOOPBACK, RESOLVED_TTL),
    Record(CHAIN_NAME, "CNAME", CHAIN_TARGET, CHAIN_CNAME_TTL),
    Record(CHAIN_TARGET, "A", LOOPBACK, CHAIN_TARGET_TTL),
    Record(CHAIN_TARGET, "AAAA", IPV6_LOOPBACK, CHAIN_TARGET_TTL),
]

HTTPDNS_STUB_RECORDS = {
    RESOLVED_NAME: StubRecord(a=(LOOPBACK,), aaaa=(IPV6_LOOPBACK,), ttl=RESOLVED_TTL),
    IPV4_ONLY_NAME: StubRecord(a=(LOOPBACK,), ttl=RESOLVED_TTL),
    ALIAS_NAME: StubRecord(ttl=ALIAS_TTL, cname=RESOLVED_NAME),
}

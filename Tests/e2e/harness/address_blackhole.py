"""A dead node inside a network namespace: nftables drops the SYNs sent to one address and port, so a connect
there hangs (no answer, no refusal) the way it does to a host that is down on a real network. On loopback a
closed port refuses at once and would hide what a dead address costs.

Only connection openings are dropped (SYN without ACK); a connection already established to the address keeps
working. Each dropped SYN, retransmissions included, adds one to the rule's packet counter, which is how a test
counts the attempts made at the dead address.
"""

import json
from dataclasses import dataclass

from .network_namespace import NetworkNamespace

TABLE = "ipdirect_e2e"
CHAIN = "output"


def _ensure_chain(namespace: NetworkNamespace) -> None:
    # Adding a table or chain that exists is a no-op in nft, so every blackhole may call this.
    namespace.run(["nft", "add", "table", "inet", TABLE])
    namespace.run(["nft", "add", "chain", "inet", TABLE, CHAIN,
                   "{ type filter hook output priority 0 ; policy accept ; }"])


def _rules(namespace: NetworkNamespace) -> list[dict]:
    listing = json.loads(namespace.run(["nft", "-j", "list", "chain", "inet", TABLE, CHAIN]).stdout)
    return [item["rule"] for item in listing["nftables"] if "rule" in item]


def _matches(rule: dict, address: str, port: int) -> bool:
    rights = {match["match"]["left"]["payload"]["field"]: match["match"]["right"]
              for match in rule["expr"] if "match" in match and "payload" in match["match"]["left"]}
    return rights.get("daddr") == address and rights.get("dport") == port


@dataclass
class Blackhole:
    namespace: NetworkNamespace
    address: str
    port: int
    handle: int | None = None

    @classmethod
    def drop(cls, namespace: NetworkNamespace, address: str, port: int) -> "Blackhole":
        """From now on, connects to `address:port` inside `namespace` go unanswered."""
        _ensure_chain(namespace)
        family = "ip6" if ":" in address else "ip"
        namespace.run(["nft", "add", "rule", "inet", TABLE, CHAIN, family, "daddr", address,
                       "tcp", "dport", str(port), "tcp", "flags", "&", "(syn|ack)", "==", "syn", "counter", "drop"])
        hole = cls(namespace, address, port)
        found = [rule["handle"] for rule in _rules(namespace) if _matches(rule, address, port)]
        if len(found) != 1:
            raise AssertionError(f"expected one nft rule for {address}:{port}, found {found}")
        hole.handle = found[0]
        return hole

    @property
    def active(self) -> bool:
        return self.handle is not None

    def packets(self) -> int:
        """SYNs dropped so far (each connect attempt, plus the kernel's retransmissions of it)."""
        assert self.handle is not None, f"the blackhole of {self.address}:{self.port} was removed"
        for rule in _rules(self.namespace):
            if rule["handle"] == self.handle:
                counters = [item["counter"]["packets"] for item in rule["expr"] if "counter" in item]
                return counters[0]
        raise AssertionError(f"the nft rule of {self.address}:{self.port} is gone")

    def remove(self) -> None:
        """The address answers again (idempotent)."""
        if self.handle is not None:
            self.namespace.run(["nft", "delete", "rule", "inet", TABLE, CHAIN, "handle", str(self.handle)])
            self.handle = None

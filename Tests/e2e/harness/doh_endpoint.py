"""What an ipdirect `doh` provider needs of a DoH server the tests run: its certificate's host name, its URL and
the bootstrap address it is reached at."""

from .ports import LOOPBACK

# RFC 8484's customary path, unbound's default `http-endpoint`.
DOH_PATH = "/dns-query"


class DohEndpoint:
    """Mixed into a DoH server fixture that sets `host_name` (a class attribute) and `port` (its TLS listener)."""
    host_name: str
    port: int

    @property
    def url(self) -> str:
        return f"https://{self.host_name}:{self.port}{DOH_PATH}"

    @property
    def bootstrap(self) -> str:
        return LOOPBACK

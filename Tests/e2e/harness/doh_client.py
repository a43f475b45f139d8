"""curl as an independent RFC 8484 client, to check the DoH fixtures without ipdirect in between.

curl reaches the server's host name through `--resolve` (never a DNS lookup) and verifies it against the test
CA, as ipdirect does with a provider's `bootstrap` and `ca_file`.
"""

import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from .dns_message import DnsResponse, decode_response, doh_get_parameter, encode_query

# RFC 8484 §6: the media type of a DNS message over HTTPS, both ways.
DNS_MESSAGE_TYPE = "application/dns-message"
# One DoH exchange on loopback takes milliseconds; this only bounds a hang.
CURL_TIMEOUT_SECONDS = 10
HTTP_VERSION_OPTIONS = {"1.1": "--http1.1", "2": "--http2"}


@dataclass(frozen=True)
class DohExchange:
    curl_exit_code: int      # 0 when an HTTP response arrived
    status: int              # HTTP status, 0 without a response
    http_version: str        # as curl reports it: "1.1", "2", or "0" without a response
    body: bytes
    stderr: str

    @property
    def response(self) -> DnsResponse:
        assert self.curl_exit_code == 0 and self.status == 200, self.describe()
        return decode_response(self.body)

    def describe(self) -> str:
        return (f"curl exit {self.curl_exit_code}, HTTP/{self.http_version} status {self.status}, "
                f"{len(self.body)} body bytes; {self.stderr.strip()}")


def query_doh(url: str, ca_file: Path, name: str, record_type: str = "A", http_version: str = "2",
              method: str = "GET", address: str = "127.0.0.1") -> DohExchange:
    """One DoH query for `name`, by GET (`?dns=`) or POST, forcing HTTP/1.1 or HTTP/2 (`http_version`)."""
    parts = urlsplit(url)
    query = encode_query(name, record_type)
    argv = ["curl", "--silent", "--show-error", "--max-time", str(CURL_TIMEOUT_SECONDS), "--noproxy", "*",
            HTTP_VERSION_OPTIONS[http_version], "--cacert", str(ca_file),
            "--resolve", f"{parts.hostname}:{parts.port}:{address}",
            "--header", f"Accept: {DNS_MESSAGE_TYPE}",
            "--write-out", "%{stderr}\n%{http_code} %{http_version}"]
    if method == "POST":
        argv += ["--header", f"Content-Type: {DNS_MESSAGE_TYPE}", "--data-binary", "@-", url]
    else:
        argv.append(f"{url}?dns={doh_get_parameter(query)}")
    result = subprocess.run(argv, input=query if method == "POST" else b"", capture_output=True,
                            timeout=CURL_TIMEOUT_SECONDS + 5)
    stderr = result.stderr.decode(errors="replace")
    status_text, _, version = stderr.rstrip().rpartition("\n")[2].partition(" ")
    return DohExchange(result.returncode, int(status_text or 0), version or "0", result.stdout, stderr)

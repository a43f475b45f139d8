"""Request bodies generated on the fly, so tests can send gigabytes without holding them in memory."""

import hashlib
import http.client
import json
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

# One block of the generated body; every block differs (it carries its index) so reordering is visible.
BLOCK_BYTES = 1024 * 1024


class GeneratedBody:
    """`total_bytes` of deterministic data; iterate once to produce it, then `sha256` is known."""

    def __init__(self, total_bytes: int):
        self.total_bytes = total_bytes
        self.produced = 0
        self._digest = hashlib.sha256()

    def __iter__(self):
        pattern = bytes(range(256)) * (BLOCK_BYTES // 256)
        index = 0
        while self.produced < self.total_bytes:
            block = (index.to_bytes(8, "big") + pattern[8:])[: self.total_bytes - self.produced]
            self._digest.update(block)
            self.produced += len(block)
            index += 1
            yield block

    @property
    def sha256(self) -> str:
        assert self.produced == self.total_bytes, "body not fully produced yet"
        return self._digest.hexdigest()


@dataclass
class UploadResult:
    status: int
    origin_report: dict
    seconds: float


def post_through_proxy(proxy_address: tuple[str, int], url: str, body: GeneratedBody, chunked: bool,
                       timeout: float) -> UploadResult:
    """POSTs `body` to `url` in absolute-form through the proxy, with Content-Length or chunked framing."""
    started = time.monotonic()
    connection = http.client.HTTPConnection(*proxy_address, timeout=timeout)
    try:
        connection.putrequest("POST", url, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", urlsplit(url).netloc)
        connection.putheader("Content-Type", "application/octet-stream")
        if chunked:
            connection.putheader("Transfer-Encoding", "chunked")
        else:
            connection.putheader("Content-Length", str(body.total_bytes))
        connection.endheaders()
        for block in body:
            connection.send(b"%x\r\n%s\r\n" % (len(block), block) if chunked else block)
        if chunked:
            connection.send(b"0\r\n\r\n")
        response = connection.getresponse()
        payload = response.read()
        try:
            report = json.loads(payload)
        except ValueError:
            report = {"unparsed": payload[:500].decode(errors="replace")}
        return UploadResult(response.status, report, time.monotonic() - started)
    finally:
        connection.close()

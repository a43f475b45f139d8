"""One small HTTP/1.1 keep-alive server on loopback that speaks the json, aliyun and tencent HTTPDNS formats,
told apart by path, and counts what it is asked (see httpdns_formats for the wire formats).

- `/resolve` (Google) and `/dns-query` (Cloudflare, with `Accept: application/dns-json`): json.
- `/{account}/d` and `/{account}/sign_d`: aliyun.
- `/d`: tencent, plain, with `token=` when the stub has one, or encrypted (`id=&alg=`).
- `/doh-query`: RFC 8484 DNS messages over HTTP/1.1, GET or POST (unbound and dnsdist serve DoH too; this one
  keeps each query, so tests can read its EDNS Client Subnet option).

A second instance with a certificate serves the same over TLS (as `httpdns.test`), for the HTTPS forms.
Records, modes and counts live in a `StubState` that tests change while the stub runs.
"""

import threading
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qsl, urlsplit

from .background_server import ServedInBackground
from .certificates import CertificatePair
from .doh_certificates import HTTPDNS_STUB_HOST_NAME
from .httpdns_formats import (FormatQuery, StubReply, answer_aliyun, answer_doh, answer_json, answer_tencent,
                              identify_aliyun, identify_doh, identify_json, identify_tencent, misbehaviour)
from .httpdns_state import DEFAULT_TTL, StubMode, StubRecord, StubRequest, StubState
from .ports import LOOPBACK
from .tls_server import HandshakeOnConnectionThread, server_context

# Accounts, token and keys the stub is configured with unless a test says otherwise.
ALIYUN_ACCOUNT_ID = "100000"               # plain /d only
ALIYUN_SIGNED_ACCOUNT_ID = "100001"        # sign_d only, with the secret below
ALIYUN_SECRET = "e2e-aliyun-secret"
TENCENT_TOKEN = "e2e-tencent-token"        # required by the TLS instance only
TENCENT_DES_KEY_ID = "2001"
TENCENT_DES_KEY = b"e2eDESk1"              # 8 bytes
TENCENT_AES_KEY_ID = "2002"
TENCENT_AES_KEY = b"e2e-aes-key-0016"      # 16 bytes
# A keep-alive connection idle this long is closed, so stray client threads never pile up.
IDLE_CONNECTION_SECONDS = 30.0
# URL paths of each format, for `url()`.
PATHS = {"json-google": "/resolve", "json-cloudflare": "/dns-query", "aliyun": "", "tencent": "/d",
         "doh": "/doh-query"}
# A POST body larger than this is no DNS query (RFC 8484 §6: one message, at most 65535 bytes).
MAXIMUM_POST_BYTES = 65535


class _Server(HandshakeOnConnectionThread):
    daemon_threads = True

    def __init__(self, stub: "HttpdnsStub"):
        self.stub = stub
        self.tls_context = stub.tls_context
        super().__init__((LOOPBACK, 0), _Handler)

    def process_request(self, request, client_address):
        self.stub.state.count_connection()
        super().process_request(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = IDLE_CONNECTION_SECONDS
    server: _Server

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self._handle(None)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0") or 0)
        if not 0 < length <= MAXIMUM_POST_BYTES:
            self._send(StubReply(400, b"a POST needs a DNS message body\n", "text/plain"))
            return
        self._handle(self.rfile.read(length))

    def _handle(self, body: bytes | None):
        stub = self.server.stub
        target = urlsplit(self.path)
        query = stub.route(target.path, dict(parse_qsl(target.query, keep_blank_values=True)),
                           {name.lower(): value for name, value in self.headers.items()}, body)
        if query is None:
            self._send(StubReply(404, b"no such HTTPDNS endpoint\n", "text/plain"))
            return
        stub.state.record_request(StubRequest(query.format, query.name, frozenset(query.types), self.path,
                                              dict(query.headers), query.message))
        self._send(stub.reply(query))

    def _send(self, reply: StubReply) -> None:
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        self.wfile.write(reply.body)


class HttpdnsStub(ServedInBackground):
    def __init__(self, records: dict[str, StubRecord] | None = None, certificate: CertificatePair | None = None,
                 aliyun_secrets: dict[str, str | None] | None = None, tencent_token: str | None = None,
                 tencent_keys: dict[str, tuple[str, bytes]] | None = None):
        """`aliyun_secrets`: account id -> signing secret (None: the account takes unsigned requests only).
        `tencent_keys`: key id -> (algorithm, key bytes) for the encrypted form."""
        self.state = StubState(records or {})
        self.certificate = certificate
        self.tls_context = server_context(certificate, alpn=["http/1.1"])
        self.aliyun_secrets = aliyun_secrets if aliyun_secrets is not None else {
            ALIYUN_ACCOUNT_ID: None, ALIYUN_SIGNED_ACCOUNT_ID: ALIYUN_SECRET}
        self.tencent_token = tencent_token
        self.tencent_keys = tencent_keys if tencent_keys is not None else {
            TENCENT_DES_KEY_ID: ("des", TENCENT_DES_KEY), TENCENT_AES_KEY_ID: ("aes", TENCENT_AES_KEY)}
        self._stopping = threading.Event()
        self._serve_in_background(_Server(self), "httpdns-stub")

    def stop(self) -> None:
        self._stopping.set()
        super().stop()

    # Where it is -----------------------------------------------------------------------------------------------
    @property
    def is_tls(self) -> bool:
        return self.tls_context is not None

    @property
    def bootstrap(self) -> str:
        return LOOPBACK

    def url(self, kind: str) -> str:
        """A provider URL: `json-google`, `json-cloudflare`, `aliyun` (the service base), `tencent` or `doh`. The plain
        stub is named by its address, as the vendors' plain endpoints are; the TLS one by `httpdns.test`."""
        host = HTTPDNS_STUB_HOST_NAME if self.is_tls else LOOPBACK
        return f"{'https' if self.is_tls else 'http'}://{host}:{self.port}{PATHS[kind]}"

    def address_url(self, kind: str) -> str:
        """The same endpoint named by its address, for clients in the tests that cannot be told `--resolve`."""
        return f"{'https' if self.is_tls else 'http'}://{LOOPBACK}:{self.port}{PATHS[kind]}"

    # What it answers -------------------------------------------------------------------------------------------
    def set_record(self, name: str, a=(), aaaa=(), ttl: int = DEFAULT_TTL, cname: str | None = None) -> None:
        """Replaces every record of `name`; with `cname`, the addresses come from the target's record."""
        self.state.set_record(name, StubRecord(tuple(a), tuple(aaaa), ttl, cname))

    def remove(self, name: str) -> None:
        self.state.remove(name)

    def set_mode(self, mode: StubMode, format: str | None = None) -> None:
        self.state.set_mode(mode, format)

    def count(self, format: str | None = None, name: str | None = None, rtype: str | None = None) -> int:
        return self.state.count(format, name, rtype)

    @property
    def connection_count(self) -> int:
        return self.state.connections

    def reset(self) -> None:
        self.state.reset()

    # Request handling (on connection threads) ------------------------------------------------------------------
    def route(self, path: str, parameters: dict[str, str], headers: dict[str, str],
              body: bytes | None = None) -> FormatQuery | None:
        if path == PATHS["doh"]:
            query = FormatQuery("doh", parameters, headers)
            identify_doh(query, body)
        elif body is not None:
            return None
        elif path in ("/resolve", "/dns-query"):
            query = FormatQuery("json", parameters, headers)
            identify_json(query, cloudflare=path == "/dns-query")
        elif path == "/d":
            query = FormatQuery("tencent", parameters, headers)
            identify_tencent(query, self.tencent_token, self.tencent_keys)
        else:
            segments = path.strip("/").split("/")
            if len(segments) != 2 or segments[1] not in ("d", "sign_d"):
                return None
            query = FormatQuery("aliyun", parameters, headers, account=segments[0], signed=segments[1] == "sign_d")
            identify_aliyun(query, self.aliyun_secrets, time.time())
        return query

    def reply(self, query: FormatQuery) -> StubReply:
        mode = self.state.mode(query.format)
        if mode.kind == "slow" and self._stopping.wait(mode.seconds):
            return StubReply(503, b"stopping\n", "text/plain")
        forced = misbehaviour(mode)
        if forced is not None:
            return forced
        if query.refusal is not None:
            return query.refusal
        resolution = self.state.resolve(query.name, mode)
        answer = {"json": answer_json, "aliyun": answer_aliyun, "tencent": answer_tencent,
                  "doh": answer_doh}[query.format]
        return answer(query, resolution)


"""The answers of the three HTTPDNS flavours the stub speaks, built from its records.

- json: Google `/resolve?name=&type=` and Cloudflare `/dns-query?name=&type=` (with
  `Accept: application/dns-json`): `Status` is the RCODE, `Answer` lists CNAMEs first, then addresses.
- aliyun: `/{account}/d?host=&query=4,6` and the signed `/{account}/sign_d?...&t=&s=`, `s` being
  md5_hex("HOST-SECRET-T"), `t` the expiry in unix seconds at most 24 h ahead.
- tencent (DNSPod D+): `/d?dn=&ttl=1&type=addrs` answering `ip;ip,TTL-ip6,TTL`; `token=` when configured;
  the encrypted form `id=&alg=des|aes` with hex ciphertext both ways (see dnspod_cipher).
- doh: RFC 8484 over HTTP/1.1 at `/doh-query`, `?dns=` (GET) or an `application/dns-message` body (POST);
  the query's EDNS options (ECS) are kept for the tests to read.
"""

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass, field

from .dns_message import decode_query, encode_response
from .dnspod_cipher import DnspodCipher
from .httpdns_state import Resolution, StubMode, normalised

# RFC 1035 §4.1.1 RCODEs and §3.2.2 / RFC 3596 TYPEs used in JSON answers.
RCODE_NO_ERROR = 0
RCODE_NAME_ERROR = 3
JSON_TYPES = {"A": 1, "AAAA": 28}
JSON_CNAME_TYPE = 5
JSON_MEDIA_TYPE = "application/dns-json"
# Aliyun refuses a signature whose expiry lies further ahead than this.
ALIYUN_MAXIMUM_SIGNATURE_LIFETIME_SECONDS = 24 * 60 * 60
ALIYUN_QUERY_TYPES = {"4": "A", "6": "AAAA"}
# What D+ answers for a family without addresses.
TENCENT_NO_ADDRESS = "0"
TENCENT_TYPES = {None: ("A",), "A": ("A",), "AAAA": ("AAAA",), "addrs": ("A", "AAAA")}
HTTP_OK = 200
HTTP_BAD_REQUEST = 400
HTTP_FORBIDDEN = 403
HTTP_UNSUPPORTED_MEDIA_TYPE = 415


@dataclass(frozen=True)
class StubReply:
    status: int
    body: bytes
    content_type: str = "application/json"


@dataclass
class FormatQuery:
    """One request, already routed to a format; `name` and `types` are what it asks (for counting)."""
    format: str
    parameters: dict[str, str]
    headers: dict[str, str]
    name: str = ""
    types: tuple[str, ...] = ()
    account: str = ""
    signed: bool = False
    cipher: DnspodCipher | None = None
    refusal: StubReply | None = field(default=None)
    message: bytes = b""


def _json_reply(document: dict, status: int = HTTP_OK, content_type: str = "application/json") -> StubReply:
    return StubReply(status, json.dumps(document).encode(), content_type)


def aliyun_signature(host: str, secret: str, expiry: int) -> str:
    return hashlib.md5(f"{host}-{secret}-{expiry}".encode()).hexdigest()


# json -------------------------------------------------------------------------------------------------------
def identify_json(query: FormatQuery, cloudflare: bool) -> None:
    query.name = normalised(query.parameters.get("name", ""))
    type_text = query.parameters.get("type", "A").upper()
    by_number = {str(number): name for name, number in JSON_TYPES.items()}
    query.types = (by_number.get(type_text, type_text),)
    if cloudflare and JSON_MEDIA_TYPE not in query.headers.get("accept", ""):
        query.refusal = StubReply(HTTP_UNSUPPORTED_MEDIA_TYPE, b"ask with Accept: application/dns-json\n", "text/plain")
    elif not query.name:
        query.refusal = _json_reply({"error": "name is missing"}, HTTP_BAD_REQUEST)


def answer_json(query: FormatQuery, resolution: Resolution) -> StubReply:
    record_type = query.types[0]
    type_number = JSON_TYPES.get(record_type, 0)
    document = {"Status": RCODE_NO_ERROR if resolution.exists else RCODE_NAME_ERROR,
                "TC": False, "RD": True, "RA": True, "AD": False, "CD": False,
                "Question": [{"name": f"{query.name}.", "type": type_number}]}
    answer = [{"name": f"{owner}.", "type": JSON_CNAME_TYPE, "TTL": ttl, "data": f"{target}."}
              for owner, target, ttl in resolution.cnames]
    answer += [{"name": f"{resolution.owner}.", "type": type_number, "TTL": resolution.ttl, "data": address}
               for address in resolution.addresses(record_type)]
    if answer:
        document["Answer"] = answer
    return _json_reply(document, content_type=JSON_MEDIA_TYPE)


# aliyun -----------------------------------------------------------------------------------------------------
def identify_aliyun(query: FormatQuery, secrets: dict[str, str | None], now: float) -> None:
    """Checks account and signature; refusals use the service's own error codes with HTTP 403."""
    query.name = normalised(query.parameters.get("host", ""))
    query.types = tuple(ALIYUN_QUERY_TYPES[part] for part in query.parameters.get("query", "4").split(",")
                        if part in ALIYUN_QUERY_TYPES)
    if query.account not in secrets:
        query.refusal = _json_reply({"code": "InvalidAccount"}, HTTP_FORBIDDEN)
    elif not query.name:
        query.refusal = _json_reply({"code": "MissingArgument"}, HTTP_BAD_REQUEST)
    elif not query.signed:
        if secrets[query.account] is not None:
            query.refusal = _json_reply({"code": "UnsignedInterfaceDisabled"}, HTTP_FORBIDDEN)
    else:
        query.refusal = _signature_refusal(query, secrets[query.account], now)


def _signature_refusal(query: FormatQuery, secret: str | None, now: float) -> StubReply | None:
    expiry_text, signature = query.parameters.get("t", ""), query.parameters.get("s", "")
    if secret is None or not expiry_text.isdigit():
        return _json_reply({"code": "SignatureMismatch"}, HTTP_FORBIDDEN)
    # The signature covers the host as the client sent it.
    if signature != aliyun_signature(query.parameters["host"], secret, int(expiry_text)):
        return _json_reply({"code": "SignatureMismatch"}, HTTP_FORBIDDEN)
    if not now <= int(expiry_text) <= now + ALIYUN_MAXIMUM_SIGNATURE_LIFETIME_SECONDS:
        return _json_reply({"code": "SignatureExpired"}, HTTP_FORBIDDEN)
    return None


def answer_aliyun(query: FormatQuery, resolution: Resolution) -> StubReply:
    """The service has no NXDOMAIN: an unknown name answers empty lists."""
    document = {"host": query.parameters["host"], "ips": list(resolution.addresses("A")) if "A" in query.types else []}
    if "AAAA" in query.types:
        document["ipsv6"] = list(resolution.addresses("AAAA"))
    document["ttl"] = document["origin_ttl"] = resolution.ttl
    return _json_reply(document)


# tencent ----------------------------------------------------------------------------------------------------
def identify_tencent(query: FormatQuery, token: str | None, keys: dict[str, tuple[str, bytes]]) -> None:
    query.types = TENCENT_TYPES.get(query.parameters.get("type"), ())
    name_text = query.parameters.get("dn", "")
    if "id" in query.parameters:
        algorithm, key = keys.get(query.parameters["id"], (None, b""))
        if algorithm is None or query.parameters.get("alg") != algorithm:
            query.refusal = StubReply(HTTP_FORBIDDEN, b"unknown key id or algorithm\n", "text/plain")
            return
        query.cipher = DnspodCipher(algorithm, key)
        try:
            name_text = query.cipher.decrypt_hex(name_text).decode("ascii")
        except (ValueError, UnicodeDecodeError):
            query.refusal = StubReply(HTTP_BAD_REQUEST, b"dn does not decrypt\n", "text/plain")
            return
    query.name = normalised(name_text)
    if token is not None and query.parameters.get("token") != token:
        query.refusal = StubReply(HTTP_FORBIDDEN, b"token missing or wrong\n", "text/plain")


def answer_tencent(query: FormatQuery, resolution: Resolution) -> StubReply:
    """Empty for an unknown name, `0` for a family without addresses; `,TTL` only when asked with ttl=1."""
    with_ttl = query.parameters.get("ttl") == "1"
    parts = []
    for record_type in query.types:
        addresses = resolution.addresses(record_type)
        text = ";".join(addresses) if addresses else TENCENT_NO_ADDRESS
        parts.append(f"{text},{resolution.ttl}" if addresses and with_ttl else text)
    text = "-".join(parts) if resolution.exists else ""
    if query.cipher is not None:
        text = query.cipher.encrypt_hex(text.encode())
    return StubReply(HTTP_OK, text.encode(), "text/plain")


# doh --------------------------------------------------------------------------------------------------------
DNS_MESSAGE_TYPE = "application/dns-message"


def identify_doh(query: FormatQuery, body: bytes | None) -> None:
    """The message from `?dns=` (base64url without padding, RFC 8484 §4.1) or from a POST body."""
    if body is None:
        text = query.parameters.get("dns", "")
        try:
            query.message = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except (binascii.Error, ValueError):
            query.refusal = StubReply(HTTP_BAD_REQUEST, b"dns= is not base64url\n", "text/plain")
            return
    else:
        query.message = body
    try:
        parsed = decode_query(query.message)
    except (ValueError, IndexError) as error:
        query.refusal = StubReply(HTTP_BAD_REQUEST, f"not a DNS query: {error}\n".encode(), "text/plain")
        return
    query.name = normalised(parsed.name)
    query.types = (parsed.type,)


def answer_doh(query: FormatQuery, resolution: Resolution) -> StubReply:
    record_type = query.types[0]
    body = encode_response(query.message, resolution.addresses(record_type), resolution.ttl, resolution.exists)
    return StubReply(HTTP_OK, body, DNS_MESSAGE_TYPE)


# Misbehaviour -----------------------------------------------------------------------------------------------
GARBAGE_BODY = b"\x00\xff<html>this is not a resolver answer</html>\n"


def misbehaviour(mode: StubMode) -> StubReply | None:
    """The reply a mode forces regardless of the request, or None to answer it."""
    if mode.kind == "garbage":
        return StubReply(HTTP_OK, GARBAGE_BODY, "text/html")
    if mode.kind == "http_error":
        return StubReply(mode.status, b"the stub is told to fail\n", "text/plain")
    return None


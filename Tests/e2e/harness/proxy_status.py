"""Checks on the errors ipdirect generates itself: status, `Proxy-Status` (RFC 9209) and a one-line body."""

import re

from .raw_http import RawResponse

# RFC 9209 §2.3, the Proxy Error Types registry.
RFC9209_ERROR_TYPES = frozenset({
    "dns_timeout", "dns_error", "destination_not_found", "destination_unavailable",
    "destination_ip_prohibited", "destination_ip_unroutable", "connection_refused", "connection_terminated",
    "connection_timeout", "connection_read_timeout", "connection_write_timeout", "connection_limit_reached",
    "tls_protocol_error", "tls_certificate_error", "tls_alert_received", "http_request_error",
    "http_request_denied", "http_response_incomplete", "http_response_header_section_size",
    "http_response_header_size", "http_response_body_size", "http_response_trailer_section_size",
    "http_response_trailer_size", "http_response_transfer_coding", "http_response_content_coding",
    "http_response_timeout", "http_upgrade_failed", "http_protocol_error", "proxy_internal_response",
    "proxy_internal_error", "proxy_configuration_error", "proxy_loop_detected",
})
PROXY_NAME = "ipdirect"
_ERROR_PARAMETER = re.compile(r";\s*error=([a-z0-9_]+)")


def proxy_error_type(response: RawResponse) -> str | None:
    """The `error=` token of ipdirect's own Proxy-Status member, or None if there is none."""
    for value in response.header_values("Proxy-Status"):
        for member in value.split(","):
            member = member.strip()
            if member.split(";", 1)[0].strip() == PROXY_NAME:
                match = _ERROR_PARAMETER.search(member)
                return match.group(1) if match else None
    return None


def assert_generated_error(response: RawResponse, status: int, error_types: set[str] | None = None,
                           mentions: tuple[str, ...] = ()) -> None:
    """The response is an ipdirect-generated error with this status, a registered error type (one of
    `error_types` when given), and a one-line text/plain body; `mentions` must appear in the body or in
    Proxy-Status's details."""
    assert response.status == status, f"expected {status}, got:\n{response.describe()}"
    error_type = proxy_error_type(response)
    assert error_type in RFC9209_ERROR_TYPES, f"no RFC 9209 error type from ipdirect in:\n{response.describe()}"
    if error_types is not None:
        assert error_type in error_types, f"error={error_type}, expected one of {sorted(error_types)}"
    content_type = (response.header("Content-Type") or "").lower()
    assert content_type.startswith("text/plain"), f"Content-Type {content_type!r}, expected text/plain"
    assert response.text.rstrip("\r\n").count("\n") == 0, f"body is not one line: {response.text!r}"
    searchable = response.text + " " + (response.header("Proxy-Status") or "")
    for fragment in mentions:
        assert fragment in searchable, f"{fragment!r} is named neither in the body nor in Proxy-Status:\n" \
                                       f"{response.describe()}"

/// An error the proxy answers itself, with the RFC 9209 Proxy-Status error type a client can act on.
public struct ProxyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// RFC 9209 §2.3 error types that ipdirect produces.
    public enum Kind: String, Sendable, Equatable {
        case dnsError = "dns_error"
        case dnsTimeout = "dns_timeout"
        case destinationIPProhibited = "destination_ip_prohibited"
        case destinationNotFound = "destination_not_found"
        case connectionRefused = "connection_refused"
        case connectionTimeout = "connection_timeout"
        case connectionTerminated = "connection_terminated"
        case connectionLimitReached = "connection_limit_reached"
        case httpRequestError = "http_request_error"
        case httpRequestDenied = "http_request_denied"
        case httpResponseIncomplete = "http_response_incomplete"
        case httpResponseTimeout = "http_response_timeout"
        case httpProtocolError = "http_protocol_error"
        /// RFC 9209 §2.3 tls_protocol_error: the TLS exchange with the next hop failed (handshake, alert, protocol version).
        case tlsProtocolError = "tls_protocol_error"
        /// RFC 9209 §2.3 tls_certificate_error: the next hop's certificate was not acceptable (expired, wrong name, untrusted, pin).
        case tlsCertificateError = "tls_certificate_error"
        case proxyInternalError = "proxy_internal_error"
    }

    public var status: Int
    public var kind: Kind
    /// One line naming what failed and why, e.g. "cannot resolve a.test: NXDOMAIN".
    public var details: String

    public init(status: Int, kind: Kind, details: String) {
        self.status = status
        self.kind = kind
        self.details = details
    }

    public var description: String { "\(status) \(kind.rawValue): \(details)" }

    /// The protection space of `[access] auth_file` (RFC 9110 §11.5), named in every 407.
    public static let realm = "ipdirect"

    /// 407 for a request without acceptable proxy credentials (RFC 9110 §15.5.8).
    public static func authenticationRequired(_ details: String) -> ProxyError {
        ProxyError(status: 407, kind: .httpRequestDenied, details: details)
    }

    public static func badRequest(_ parse: HTTPParseError) -> ProxyError {
        ProxyError(status: parse.status, kind: .httpRequestError, details: parse.reason)
    }

    /// The whole response: status line, Proxy-Status (RFC 9209 §2), and a one-line text body. It has a
    /// Content-Length, so an HTTP/1.0 client may keep the connection when `persistence` is `.keepAlive`.
    /// An answer to HEAD carries the same fields and no body (RFC 9110 §9.3.2).
    public func response(proxyName: String, persistence: ResponsePersistence, headOnly: Bool = false) -> [UInt8] {
        let body = "ipdirect: \(details)\n"
        var head = "HTTP/1.1 \(status) \(ProxyError.reasonPhrase(status))\r\n"
        head += "Proxy-Status: \(proxyName); error=\(kind.rawValue); details=\"\(ProxyError.quoted(details))\"\r\n"
        head += "Content-Type: text/plain; charset=utf-8\r\n"
        head += "Content-Length: \(body.utf8.count)\r\n"
        head += "Cache-Control: no-store\r\n"
        if status == 407 {
            // RFC 9110 §11.7.1: the challenge a client answers with Proxy-Authorization.
            head += "Proxy-Authenticate: Basic realm=\"\(ProxyError.realm)\", charset=\"UTF-8\"\r\n"
        }
        head += persistence.fieldLine
        head += "\r\n"
        return Array((headOnly ? head : head + body).utf8)
    }

    /// sf-string escaping (RFC 8941 §3.3.3): only printable ASCII, with `"` and `\` escaped.
    private static func quoted(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"", "\\": out += "\\\(scalar)"
            case " "..."~": out.unicodeScalars.append(scalar)
            default: out += "?"
            }
        }
        return out
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 407: return "Proxy Authentication Required"
        case 408: return "Request Timeout"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default: return "Error"
        }
    }
}

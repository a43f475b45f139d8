import IPDirectCore

/// Turns an `HTTPDNSRequest` into what goes on the wire: an HTTP/1.1 head and body, or the HTTP/2
/// field list. Requests are checked first, so no value can end a field line or smuggle a second one.
enum HTTPDNSRequestEncoder {
    /// RFC 9112 §7.6.1 and RFC 9113 §8.2.2: connection-specific fields that HTTP/2 forbids and that the
    /// encoder writes itself for HTTP/1.1 (Host comes from the endpoint, Content-Length from the body).
    private static let managedFieldNames: Set<String> = [
        "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "content-length",
    ]

    /// Why `request` cannot be sent, or nil. The target must be origin-form (RFC 9112 §3.2.1) of visible
    /// ASCII; names must be tokens and values free of CR, LF and NUL (RFC 9110 §5.5).
    static func problem(in request: HTTPDNSRequest) -> String? {
        let target = Array(request.target.utf8)
        guard target.first == UInt8(ascii: "/"), target.allSatisfy(isVisible) else {
            return "request target \"\(request.target)\" is not origin-form visible ASCII"
        }
        if request.method == .get && !request.body.isEmpty { return "a GET request carries no body" }
        for field in request.headerFields {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(isTokenChar) else {
                return "field name \"\(field.name)\" is not a token"
            }
            guard field.value.utf8.allSatisfy({ isVisible($0) || $0 == space || $0 == tab }) else {
                return "field \(field.name) has a control character in its value"
            }
        }
        return nil
    }

    /// The fields a format asked for, minus those the encoder manages itself.
    static func formatFields(of request: HTTPDNSRequest) -> [HTTPDNSRequest.Field] {
        request.headerFields.filter { !managedFieldNames.contains($0.name.lowercased()) }
    }

    /// RFC 9112 §3 and §6.2: request line, Host, the format's fields, Content-Length for a POST, then the body.
    static func http1Bytes(_ request: HTTPDNSRequest, authority: String) -> [UInt8] {
        var head = "\(request.method) \(request.target) HTTP/1.1\r\nHost: \(authority)\r\n"
        for field in formatFields(of: request) {
            head += "\(field.name): \(field.value)\r\n"
        }
        if request.method == .post {
            head += "Content-Length: \(request.body.count)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8) + request.body
    }

    /// RFC 9113 §8.3.1: the pseudo-header fields first, then the format's fields with lower-case names
    /// (RFC 9113 §8.2.1), and content-length for a POST.
    static func http2Fields(_ request: HTTPDNSRequest, endpoint: HTTPDNSEndpoint) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            (":method", request.method.rawValue),
            (":scheme", endpoint.scheme),
            (":authority", endpoint.authority),
            (":path", request.target),
        ]
        for field in formatFields(of: request) {
            fields.append((field.name.lowercased(), field.value))
        }
        if request.method == .post {
            fields.append(("content-length", String(request.body.count)))
        }
        return fields
    }

    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    /// RFC 9110 §5.6.2 tchar, besides letters and digits.
    private static let tokenSymbols = Set("!#$%&'*+-.^_`|~".utf8)

    /// RFC 5234 VCHAR: printable ASCII without space.
    private static func isVisible(_ byte: UInt8) -> Bool {
        (0x21...0x7E).contains(byte)
    }

    private static func isTokenChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return tokenSymbols.contains(byte)
        }
    }
}

/// A complete HTTPDNS response: the body is read whole, as answers are small and bounded by
/// `ProviderAnswerLimits.maximumBodySize`.
struct HTTPDNSResponse: Equatable, CustomStringConvertible {
    var status: Int
    /// The Content-Type field value as sent, if any.
    var contentType: String?
    var body: [UInt8]
    /// The protocol the response came over: "h2" or "http/1.1" (the ALPN identifiers, RFC 7301 §6).
    var protocolName: String

    /// RFC 7301 §6 identifier of HTTP/2 over TLS (RFC 9113 §3.2).
    static let http2 = "h2"
    /// RFC 7301 §6 identifier of HTTP/1.1.
    static let http11 = "http/1.1"
    /// RFC 9110 §15.3: only a 2xx carries the answer.
    static let successful = 200...299

    var description: String {
        "\(protocolName) \(status) \(contentType ?? "-") \(body.count) bytes"
    }

    /// The response as the caller sees it: a status other than 2xx is an error the caller fails over on.
    var outcome: Result<HTTPDNSResponse, HTTPDNSTransportError> {
        HTTPDNSResponse.successful.contains(status)
            ? .success(self) : .failure(.httpStatus(status, body: HTTPDNSResponse.excerpt(body)))
    }

    /// Error bodies name the cause (Alibaba Cloud's `{"code":"InvalidAccount"}`), so their start is kept
    /// for the log: printable ASCII only, double quotes made single so the log's quoting holds.
    static func excerpt(_ body: [UInt8]) -> String {
        String(decoding: body.prefix(excerptLength).map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "\""): return UInt8(ascii: "'")
            case 0x20...0x7E: return byte
            default: return UInt8(ascii: ".")
            }
        }, as: UTF8.self)
    }

    /// How much of an error body is kept.
    static let excerptLength = 120
}

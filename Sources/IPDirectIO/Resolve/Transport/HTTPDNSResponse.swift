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
            ? .success(self) : .failure(.httpStatus(status, body: String(decoding: body, as: UTF8.self)))
    }
}

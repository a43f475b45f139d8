import IPDirectCore

/// Why a DNS response carries no usable answer: the provider failed, so the next source is tried.
/// (NXDOMAIN and NOERROR-without-records are answers, not errors: see `DNSAnswer`.)
public enum DNSAnswerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Longer than any DNS message can be; the byte count.
    case tooLarge(Int)
    /// Not a well-formed DNS response; what was wrong.
    case malformed(String)
    /// The TC bit is set (RFC 1035 §4.1.1): the records are incomplete, so none are trusted.
    case truncated
    /// The server reported a failure such as SERVFAIL or REFUSED.
    case serverError(DNSResponseCode)
    /// The response answers another question than the one asked (RFC 8484 §4.2 leaves matching to us).
    case questionMismatch(asked: String, answered: String)

    public var description: String {
        switch self {
        case .tooLarge(let count):
            return "DNS response of \(count) bytes is larger than \(DNSAnswer.maximumMessageSize)"
        case .malformed(let reason):
            return "malformed DNS response: \(reason)"
        case .truncated:
            return "DNS response is truncated (TC bit set)"
        case .serverError(let code):
            return "DNS server answered \(code)"
        case .questionMismatch(let asked, let answered):
            return "DNS response is for \(LogQuote.singleQuoted(answered)), not the \(LogQuote.singleQuoted(asked)) asked"
        }
    }
}

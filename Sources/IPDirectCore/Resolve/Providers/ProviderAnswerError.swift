/// Why an HTTPDNS answer was refused; logged with the provider's name, then the next source is tried.
public enum ProviderAnswerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The body is larger than `ProviderAnswerLimits.maximumBodySize`.
    case bodyTooLarge(size: Int, limit: Int)
    /// The body is not the JSON text the format promises.
    case malformedJSON(JSONReader.Failure)
    /// The body does not have the shape of the format ("Status is not an integer").
    case malformedAnswer(String)
    /// The answer is about a different name than the one asked (a misrouted or forged answer).
    case nameMismatch(asked: String, answered: String)
    /// An address that does not parse strictly as IPv4 or IPv6.
    case invalidAddress(String)
    /// An address of the other family than the one the list or record holds.
    case wrongAddressFamily(String, expected: AddressFamily)
    /// More addresses than `ProviderAnswerLimits.maximumAddressCount`.
    case tooManyAddresses(count: Int, limit: Int)
    /// A TTL that is not an integer from 0 to 2^31 - 1 (RFC 2181 §8).
    case invalidTTL(String)
    /// The DNS answer's RCODE (RFC 1035 §4.1.1, RFC 6895 §2.3) is an error other than NXDOMAIN.
    case serverFailure(rcode: Int)
    /// The provider answered with its own error code (Alibaba Cloud's `{"code":"InvalidAccount"}`).
    case providerError(code: String)
    /// An encrypted answer that does not decrypt (wrong key, truncated, not hex).
    case undecryptable(String)

    public var description: String {
        switch self {
        case .bodyTooLarge(let size, let limit): return "answer of \(size) bytes exceeds the \(limit)-byte limit"
        case .malformedJSON(let failure): return "answer is not valid JSON: \(failure)"
        case .malformedAnswer(let why): return "malformed answer: \(why)"
        case .nameMismatch(let asked, let answered): return "asked for \(asked) but the answer is for \(LogQuote.token(answered))"
        case .invalidAddress(let text): return "\(LogQuote.singleQuoted(text)) is not an IP address"
        case .wrongAddressFamily(let text, let expected): return "\(LogQuote.singleQuoted(text)) is not an \(expected) address"
        case .tooManyAddresses(let count, let limit): return "answer lists \(count) addresses, more than \(limit)"
        case .invalidTTL(let text): return "TTL \(LogQuote.singleQuoted(text)) is not an integer from 0 to 2147483647"
        case .serverFailure(let rcode): return "DNS error \(DNSResponseCode.name(of: rcode)) (RCODE \(rcode))"
        case .providerError(let code): return "provider error \(LogQuote.token(code))"
        case .undecryptable(let why): return "answer does not decrypt: \(why)"
        }
    }
}

/// How one TCP connection attempt to an upstream address ended; the label of
/// `ipdirect_upstream_connect_attempts_total`.
public enum UpstreamAttemptOutcome: String, Sendable, CaseIterable, CustomStringConvertible {
    /// TCP connected (whether or not it then won the race).
    case connected
    case refused
    /// No answer within `connect_timeout`.
    case timeout
    /// Closed unanswered because another address connected first (RFC 8305 §5).
    case abandoned
    /// Unreachable, reset, or no socket.
    case error
    /// The TCP connection stood but the TLS handshake failed.
    case tlsFailure = "tls_failure"

    public var description: String { rawValue }

    /// Whether the address should be skipped for a while: it answered nothing, refused, or failed TLS.
    public var quarantines: Bool {
        switch self {
        case .connected: return false
        case .refused, .timeout, .abandoned, .error, .tlsFailure: return true
        }
    }
}

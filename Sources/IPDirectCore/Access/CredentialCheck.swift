/// The answer to one proxy login (a user and password from `Proxy-Authorization: Basic`, RFC 7617, or
/// SOCKS5 username/password, RFC 1929).
public enum CredentialCheck: Sendable, Equatable, CustomStringConvertible {
    case accepted
    /// `reason` is for the log; it never holds the password.
    case refused(reason: String)

    public var description: String {
        switch self {
        case .accepted: return "accepted"
        case .refused(let reason): return "refused reason=\"\(reason)\""
        }
    }
}

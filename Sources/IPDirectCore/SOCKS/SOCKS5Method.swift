/// The authentication methods ipdirect knows by name (RFC 1928 §3).
public enum SOCKS5Method: UInt8, Sendable, CustomStringConvertible {
    case noAuthentication = 0x00
    /// RFC 1929.
    case usernamePassword = 0x02
    /// The server's answer when no offered method is acceptable; the client then closes.
    case noAcceptable = 0xFF

    public var description: String {
        switch self {
        case .noAuthentication: return "no-authentication"
        case .usernamePassword: return "username-password"
        case .noAcceptable: return "no-acceptable-method"
        }
    }
}

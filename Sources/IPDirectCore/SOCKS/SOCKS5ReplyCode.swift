/// REP, the outcome a SOCKS5 server reports for a request (RFC 1928 §6).
public enum SOCKS5ReplyCode: UInt8, Sendable, CustomStringConvertible {
    case succeeded = 0x00
    case generalFailure = 0x01
    case notAllowedByRuleset = 0x02
    case networkUnreachable = 0x03
    case hostUnreachable = 0x04
    case connectionRefused = 0x05
    case ttlExpired = 0x06
    case commandNotSupported = 0x07
    case addressTypeNotSupported = 0x08

    public var description: String {
        switch self {
        case .succeeded: return "succeeded"
        case .generalFailure: return "general-failure"
        case .notAllowedByRuleset: return "not-allowed-by-ruleset"
        case .networkUnreachable: return "network-unreachable"
        case .hostUnreachable: return "host-unreachable"
        case .connectionRefused: return "connection-refused"
        case .ttlExpired: return "ttl-expired"
        case .commandNotSupported: return "command-not-supported"
        case .addressTypeNotSupported: return "address-type-not-supported"
        }
    }
}

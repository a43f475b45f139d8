/// What a SOCKS client asks the proxy to do (RFC 1928 §4 CMD; SOCKS4's CD).
public enum SOCKSCommand: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Open a TCP connection to the destination.
    case connect
    /// Accept one inbound connection for the client (FTP's active mode).
    case bind
    /// Relay UDP datagrams (SOCKS5 only).
    case udpAssociate
    /// A value no version defines: kept so the caller can answer "command not supported" (0x07)
    /// instead of closing without a word.
    case other(UInt8)

    /// The SOCKS5 CMD value: 1 CONNECT, 2 BIND, 3 UDP ASSOCIATE.
    init(socks5 value: UInt8) {
        switch value {
        case 1: self = .connect
        case 2: self = .bind
        case 3: self = .udpAssociate
        default: self = .other(value)
        }
    }

    /// The SOCKS4 CD value: 1 CONNECT, 2 BIND; SOCKS4 has no UDP.
    init(socks4 value: UInt8) {
        switch value {
        case 1: self = .connect
        case 2: self = .bind
        default: self = .other(value)
        }
    }

    public var description: String {
        switch self {
        case .connect: return "connect"
        case .bind: return "bind"
        case .udpAssociate: return "udp-associate"
        case .other(let value): return "command \(value)"
        }
    }
}

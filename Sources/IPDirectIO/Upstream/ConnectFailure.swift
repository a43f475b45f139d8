import Glibc
import IPDirectCore

/// Why a connect ended without a connection, as the connector saw it: every attempt with its outcome,
/// or the TLS failure of the connection that won. Each caller words it its own way: the session as an
/// RFC 9209 Proxy-Status error, the HTTPDNS transport as a reason to try the next endpoint.
struct ConnectFailure: Error, CustomStringConvertible {
    /// One address tried, and how that attempt ended.
    struct Attempt: CustomStringConvertible {
        /// How a connect attempt ended. The description is the text logs and error bodies show.
        enum Outcome: Equatable, CustomStringConvertible {
            /// ECONNREFUSED: something answered and nothing listens on the port.
            case refused
            /// ENETUNREACH, e.g. an IPv6 address on a host with IPv4 only.
            case networkUnreachable
            /// EHOSTUNREACH.
            case hostUnreachable
            /// The connect timer ran out: the network ate the SYNs.
            case timedOut(millis: Int)
            /// No socket could be made for the attempt.
            case noSocket
            /// Any other errno, as `strerror` words it.
            case failed(errnoText: String)

            init(errno code: Int32) {
                switch code {
                case ECONNREFUSED: self = .refused
                case ENETUNREACH: self = .networkUnreachable
                case EHOSTUNREACH: self = .hostUnreachable
                default: self = .failed(errnoText: String(cString: strerror(code)))
                }
            }

            var description: String {
                switch self {
                case .refused: return "refused"
                case .networkUnreachable: return "network unreachable"
                case .hostUnreachable: return "host unreachable"
                case .timedOut(let millis): return "timed out after \(millis) ms"
                case .noSocket: return "no socket"
                case .failed(let errnoText): return errnoText
                }
            }
        }

        var address: SocketAddress
        var outcome: Outcome
        var timedOut: Bool {
            if case .timedOut = outcome { return true }
            return false
        }
        var description: String { "\(address) \(outcome)" }
    }

    enum Cause {
        /// Every address failed before TCP stood (or none could be tried).
        case attempts([Attempt])
        /// TCP stood at `address`, then TLS for `host` failed.
        case tls(TLSFailure, host: String, address: SocketAddress)
    }

    /// `host:port` as the client named it.
    var hostPort: String
    var cause: Cause

    /// Every attempt ran into its connect timeout (the network ate the SYNs), or the handshake did.
    var timedOut: Bool {
        switch cause {
        case .attempts(let attempts): return !attempts.isEmpty && attempts.allSatisfy(\.timedOut)
        case .tls(let failure, _, _):
            if case .handshakeTimedOut = failure.reason { return true }
            return false
        }
    }

    var description: String {
        switch cause {
        case .attempts(let attempts):
            return "cannot connect to \(hostPort): " + attempts.map(\.description).joined(separator: "; ")
        case .tls(let failure, let host, let address):
            return failure.proxyError(host: host, address: address).details
        }
    }
}

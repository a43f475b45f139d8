import IPDirectCore

/// Why a connect ended without a connection, as the connector saw it: every attempt with its outcome,
/// or the TLS failure of the connection that won. Each caller words it its own way: the session as an
/// RFC 9209 Proxy-Status error, the HTTPDNS transport as a reason to try the next endpoint.
struct ConnectFailure: Error, CustomStringConvertible {
    /// One address tried, and how that attempt ended.
    struct Attempt: CustomStringConvertible {
        var address: SocketAddress
        var outcome: String
        var timedOut: Bool
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

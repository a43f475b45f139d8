/// What a connection redirected to the transparent listener brought with it, and what its first bytes taught:
/// where the client meant to connect, and the name it meant. A class, held by the one machine that serves the
/// connection: every machine asks at each request whether it has one, and an optional reference answers that
/// with one comparison where an optional struct of strings and addresses was copied and destroyed to ask it.
public final class TransparentConnection {
    /// The destination the client connected to before the redirect (`SO_ORIGINAL_DST`).
    public let original: SocketAddress
    /// The name the DNS listener last answered with the original address, while that answer is fresh: the
    /// name a client that sends none most likely meant.
    public let answeredName: String?
    /// How the name that decides where the connection goes was found.
    public internal(set) var sniffed = TransparentSniff.none
    /// The ClientHello's server name, when it had one.
    public internal(set) var serverName: String?
    /// The addresses HTTPDNS (or the other sources) gave for the name, in rank order, once resolved.
    public internal(set) var answer: [IPAddress] = []

    public init(original: SocketAddress, answeredName: String?) {
        self.original = original
        self.answeredName = answeredName
    }

    /// Whether the address the client chose is among those the name resolves to; nil before the lookup, or
    /// when the connection goes to its original address unresolved.
    public var originalInAnswer: Bool? {
        answer.isEmpty ? nil : answer.contains(original.ip.unmapped)
    }

    /// What the access log says of it.
    public var summary: TransparentSummary {
        TransparentSummary(original: original, sniffed: sniffed, serverName: serverName)
    }
}

/// A redirected connection as its access-log line gives it: where it was going and what named its host.
public struct TransparentSummary: Sendable, Equatable {
    public let original: SocketAddress
    public let sniffed: TransparentSniff
    public let serverName: String?

    public init(original: SocketAddress, sniffed: TransparentSniff, serverName: String?) {
        self.original = original
        self.sniffed = sniffed
        self.serverName = serverName
    }
}

/// Where a transparent connection's name came from.
public enum TransparentSniff: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// The server name of a TLS ClientHello.
    case tls
    /// The Host of an HTTP request.
    case http
    /// No name in the first bytes: the DNS listener's last answer for the original address.
    case dns
    /// No name at all: the original address.
    case none

    public var description: String { rawValue }

    var ordinal: Int {
        switch self {
        case .tls: return 0
        case .http: return 1
        case .dns: return 2
        case .none: return 3
        }
    }
}

/// What became of a transparent connection, for the metric.
public enum TransparentOutcome: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// Connected to the name's addresses, through the ranking.
    case resolved
    /// Connected to the original address: observe mode, or nothing named a host.
    case original
    /// Closed unserved: the client ACL, a port, the address policy, `unsniffed = "reset"`, or a failure.
    case refused
    /// Its original destination is ipdirect itself, or it came from one of ipdirect's own upstream
    /// connections: the rules do not exempt ipdirect's own traffic.
    case loop

    public var description: String { rawValue }

    var ordinal: Int {
        switch self {
        case .resolved: return 0
        case .original: return 1
        case .refused: return 2
        case .loop: return 3
        }
    }
}

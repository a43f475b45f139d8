/// The attempts of one query relayed to plain-DNS servers: each server in turn over UDP, the same server
/// over TCP when its answer is truncated (RFC 7766 §5), the next server after a timeout or an unusable
/// answer, SERVFAIL once none is left. Events in, actions out; the forwarder performs them.
public struct DNSForwardAttempts: Sendable {
    public let relayed: DNSRelayedQuery
    public let https: DNSHTTPSRecords
    private let servers: [SocketAddress]
    private var next = 0
    private var failures: [String] = []
    /// Where the current attempt waits for an answer, and how.
    public private(set) var current: (server: SocketAddress, overTCP: Bool)?

    public init(relayed: DNSRelayedQuery, servers: [SocketAddress], https: DNSHTTPSRecords) {
        self.relayed = relayed
        self.servers = servers
        self.https = https
    }

    public enum Action: Equatable, Sendable {
        /// Send `relayed.wire` from a fresh socket and wait, at most the forward timeout.
        case sendUDP(SocketAddress)
        /// Connect, send `relayed.wire` with its length prefix and wait, at most the forward timeout.
        case sendTCP(SocketAddress)
        /// Not for this query: go on waiting on the same socket.
        case keepWaiting
        /// The answer for the client; `from` names the server and transport that gave it, for the log.
        case answer(DNSResponseMessage, dropped: Int, from: String)
        /// No server gave an answer: SERVFAIL, `reason` for the log.
        case fail(reason: String)
    }

    public mutating func start() -> Action {
        nextServer()
    }

    /// A message arrived on the current attempt's socket.
    public mutating func received(_ bytes: [UInt8]) -> Action {
        guard let attempt = current else { return .keepWaiting }
        switch relayed.read(bytes, https: https) {
        case .unrelated:
            // Over TCP the connection is ours alone, so a stray message means the server is confused.
            return attempt.overTCP ? failed("answer for another query over TCP") : .keepWaiting
        case .truncated:
            guard !attempt.overTCP else { return failed("truncated answer over TCP") }
            current = (attempt.server, true)
            return .sendTCP(attempt.server)
        case .unusable(let reason):
            return failed(reason)
        case .response(let response, let dropped):
            current = nil
            return .answer(response, dropped: dropped, from: Self.describe(attempt))
        }
    }

    /// The current attempt saw no answer in time.
    public mutating func timedOut() -> Action {
        failed("no answer in \(DNSSettings.forwardTimeoutMs) ms")
    }

    /// The current attempt's socket failed (refused, reset, closed early).
    public mutating func failed(_ reason: String) -> Action {
        if let attempt = current {
            failures.append("\(Self.describe(attempt)): \(reason)")
        }
        return nextServer()
    }

    private static func describe(_ attempt: (server: SocketAddress, overTCP: Bool)) -> String {
        "\(attempt.server)/\(attempt.overTCP ? "tcp" : "udp")"
    }

    private mutating func nextServer() -> Action {
        guard next < servers.count else {
            current = nil
            return .fail(reason: failures.isEmpty ? "no forward server" : failures.joined(separator: "; "))
        }
        let server = servers[next]
        next += 1
        current = (server, false)
        return .sendUDP(server)
    }
}

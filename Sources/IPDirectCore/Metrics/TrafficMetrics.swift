/// What one worker's client connections did, as plain numbers: the worker updates its own copy behind
/// an uncontended lock, and the admin listener adds the copies of all workers up for `/metrics`.
public struct TrafficMetrics: Sendable, Equatable {
    /// One series of `ipdirect_requests_total`.
    public typealias RequestKey = RequestCounts.Key

    /// Exchanges finished (requests answered, tunnels ended), by method and status.
    public var requestCounts = RequestCounts()
    /// Every series of `requestCounts` counted at least once.
    public var requests: [RequestKey: UInt64] { requestCounts.byKey }
    public var connectionsAccepted: UInt64 = 0
    /// Client connections open now.
    public var connectionsActive: Int64 = 0
    /// Of those, kept-alive connections parked between requests, holding no buffers.
    public var connectionsParked: Int64 = 0
    public var tunnelsOpened: UInt64 = 0
    /// CONNECT tunnels and upgraded connections relaying now.
    public var tunnelsActive: Int64 = 0
    /// Bytes the clients sent and received, heads included, counted when each exchange ends.
    public var bytesFromClients: UInt64 = 0
    public var bytesToClients: UInt64 = 0
    /// Tunnel and body bytes moved in the kernel through a pipe (splice), never copied to user space.
    public var splicedBytes: UInt64 = 0
    /// Pipe pairs open now, busy or kept for reuse (bounded by `max_pipes`).
    public var pipesOpen: Int64 = 0
    /// Times bytes in flight found every pipe busy and went through a user-space buffer instead.
    public var pipeShortages: UInt64 = 0
    /// Upstream connections that failed before TLS, by RFC 9209 error type (`connection_refused`, ...).
    public var connectFailures: [String: UInt64] = [:]
    /// TLS handshakes with the upstream that failed, by RFC 9209 error type (`tls_certificate_error`, ...).
    public var tlsFailures: [String: UInt64] = [:]
    /// Time to resolve the upstream host, per exchange that resolved one (pooled connections do not).
    public var resolveDuration = LatencyHistogram()
    /// Time to connect to the upstream (TLS handshake included), per exchange that connected.
    public var connectDuration = LatencyHistogram()
    /// Time from the request head to the response head, per forwarded request that got one.
    public var firstByteDuration = LatencyHistogram()
    /// The DNS listener's queries, answered on this worker.
    public var dns = DNSListenerCounters()
    /// Connections redirected to the transparent listener, by what named their host and what became of them.
    public var transparentConnections = TransparentCounts()

    public init() {}

    /// Counts one finished exchange.
    public mutating func countExchange(method: HTTPMethod, status: Int, bytesFromClient: UInt64, bytesToClient: UInt64) {
        requestCounts.count(method, status: status)
        bytesFromClients += bytesFromClient
        bytesToClients += bytesToClient
    }

    /// Counts one finished exchange by the method's text, as the series labels it.
    public mutating func countExchange(method: String, status: Int, bytesFromClient: UInt64, bytesToClient: UInt64) {
        requestCounts.count(method: method, status: status)
        bytesFromClients += bytesFromClient
        bytesToClients += bytesToClient
    }

    /// Counts an upstream connection that failed, as a TLS failure when the error type says so.
    public mutating func countUpstreamFailure(_ kind: ProxyError.Kind) {
        switch kind {
        case .tlsProtocolError, .tlsCertificateError: tlsFailures[kind.rawValue, default: 0] += 1
        default: connectFailures[kind.rawValue, default: 0] += 1
        }
    }

    /// Adds another worker's numbers to these.
    public mutating func add(_ other: TrafficMetrics) {
        requestCounts.add(other.requestCounts)
        connectionsAccepted += other.connectionsAccepted
        connectionsActive += other.connectionsActive
        connectionsParked += other.connectionsParked
        tunnelsOpened += other.tunnelsOpened
        tunnelsActive += other.tunnelsActive
        bytesFromClients += other.bytesFromClients
        bytesToClients += other.bytesToClients
        splicedBytes += other.splicedBytes
        pipesOpen += other.pipesOpen
        pipeShortages += other.pipeShortages
        connectFailures.merge(other.connectFailures, uniquingKeysWith: +)
        tlsFailures.merge(other.tlsFailures, uniquingKeysWith: +)
        resolveDuration.add(other.resolveDuration)
        connectDuration.add(other.connectDuration)
        firstByteDuration.add(other.firstByteDuration)
        dns.add(other.dns)
        transparentConnections.add(other.transparentConnections)
    }

    /// Counts one connection redirected to the transparent listener.
    public mutating func countTransparent(sniffed: TransparentSniff, outcome: TransparentOutcome) {
        transparentConnections.count(sniffed: sniffed, outcome: outcome)
    }
}

/// `ipdirect_transparent_connections_total` by its two labels: one counter per pair, in a table laid out at
/// start, so that counting a connection neither hashes nor allocates.
public struct TransparentCounts: Sendable, Equatable {
    private var counters = [UInt64](repeating: 0, count: TransparentSniff.allCases.count * TransparentOutcome.allCases.count)

    public init() {}

    public subscript(sniffed: TransparentSniff, outcome: TransparentOutcome) -> UInt64 {
        counters[Self.slot(sniffed, outcome)]
    }

    mutating func count(sniffed: TransparentSniff, outcome: TransparentOutcome) {
        counters[Self.slot(sniffed, outcome)] += 1
    }

    mutating func add(_ other: TransparentCounts) {
        for slot in counters.indices { counters[slot] += other.counters[slot] }
    }

    /// The pairs counted at least once, in the order of the labels' declarations.
    public var counted: [(sniffed: TransparentSniff, outcome: TransparentOutcome, value: UInt64)] {
        TransparentSniff.allCases.flatMap { sniffed in
            TransparentOutcome.allCases.compactMap { outcome in
                let value = self[sniffed, outcome]
                return value == 0 ? nil : (sniffed, outcome, value)
            }
        }
    }

    private static func slot(_ sniffed: TransparentSniff, _ outcome: TransparentOutcome) -> Int {
        sniffed.ordinal * TransparentOutcome.allCases.count + outcome.ordinal
    }
}

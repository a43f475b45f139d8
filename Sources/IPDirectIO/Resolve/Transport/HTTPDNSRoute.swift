import CEvent
import IPDirectCore

/// Everything the transport holds for one bootstrap address: the queue of exchanges waiting for a
/// connection, the connects in flight, and the connections: one HTTP/2 connection carrying every
/// exchange as a stream, or up to `maximumHTTP1Connections` HTTP/1.1 connections, a few kept idle.
final class HTTPDNSRoute {
    /// What the endpoint speaks at this address, learnt from ALPN on the first TLS connection.
    private enum Negotiated: CustomStringConvertible {
        /// No connection finished yet (TLS): one connect at a time until ALPN says.
        case unknown
        /// HTTP/1.1: one exchange per connection, several connections.
        case http1
        /// HTTP/2: one connection, exchanges as streams.
        case http2

        var description: String {
            switch self {
            case .unknown: return "unknown"
            case .http1: return HTTPDNSResponse.http11
            case .http2: return HTTPDNSResponse.http2
            }
        }
    }

    let address: SocketAddress
    let endpoint: HTTPDNSEndpoint
    private let base: EventBase
    private let tls: TLSClientContext?
    private let timeoutMillis: Int
    private let limits: HTTPDNSTransport.Limits
    private var negotiated: Negotiated
    private var waiting: [HTTPDNSExchange] = []
    private var connectors: [Int: Connector] = [:]
    private var nextConnectorID = 0
    private var http2: HTTP2Connection?
    /// HTTP/2 connections that stopped taking streams (GOAWAY) but still finish their open ones.
    private var draining: [HTTP2Connection] = []
    private var busy: [HTTP1Connection] = []
    /// Longest idle first.
    private var idle: [HTTP1Connection] = []

    init(address: SocketAddress, endpoint: HTTPDNSEndpoint, base: EventBase, tls: TLSClientContext?,
         timeoutMillis: Int, limits: HTTPDNSTransport.Limits) {
        self.address = address
        self.endpoint = endpoint
        self.base = base
        self.tls = tls
        self.timeoutMillis = timeoutMillis
        self.limits = limits
        // No h2c (RFC 9113 §3.1 dropped the Upgrade path): plain http:// endpoints speak HTTP/1.1.
        negotiated = tls == nil ? .http1 : .unknown
    }

    /// TCP connections open or being opened, for tests and logs.
    var connectionCount: Int {
        connectors.count + busy.count + idle.count + (http2 == nil ? 0 : 1) + draining.count
    }

    func enqueue(_ exchange: HTTPDNSExchange) {
        waiting.append(exchange)
        exchange.detach = { [weak self, unowned exchange] in self?.dequeue(exchange) }
        pump()
    }

    /// Puts an exchange whose keep-alive connection went stale back at the head of the queue.
    func retry(_ exchange: HTTPDNSExchange) {
        exchange.phase = .waitingForConnection
        waiting.insert(exchange, at: 0)
        exchange.detach = { [weak self, unowned exchange] in self?.dequeue(exchange) }
        pump()
    }

    private func dequeue(_ exchange: HTTPDNSExchange) {
        waiting.removeAll { $0 === exchange }
    }

    /// Hands waiting exchanges to connections with room, and opens connections where allowed.
    func pump() {
        if let http2, !http2.isUsable {
            self.http2 = nil
            if http2.hasOpenStreams { draining.append(http2) }
        }
        if let http2 {
            while !waiting.isEmpty && http2.hasStreamCapacity {
                http2.start(waiting.removeFirst())
            }
            return
        }
        guard !waiting.isEmpty else { return }
        switch negotiated {
        case .http1:
            while !waiting.isEmpty, let connection = takeIdle() {
                busy.append(connection)
                connection.start(waiting.removeFirst())
            }
            let room = limits.maximumHTTP1Connections - busy.count - connectors.count
            let wanted = waiting.count - connectors.count
            for _ in 0..<max(0, min(room, wanted)) { connect() }
        case .unknown, .http2:
            if connectors.isEmpty { connect() }
        }
        for exchange in waiting where !connectors.isEmpty { exchange.phase = .connecting }
    }

    private func takeIdle() -> HTTP1Connection? {
        while let connection = idle.popLast() {
            if connection.looksReusable { return connection }
            connection.close()
        }
        return nil
    }

    private func connect() {
        let id = nextConnectorID
        nextConnectorID += 1
        let connector = Connector(base: base, hostPort: endpoint.authority,
                                  addresses: [address], timeoutMillis: timeoutMillis,
                                  tls: tls.map { ($0, endpoint.host) }) { [unowned self] result in
            connectors[id] = nil
            connected(result)
        }
        connectors[id] = connector
        connector.start()
    }

    private func connected(_ result: Result<UpstreamConnection, ConnectFailure>) {
        switch result {
        case .failure(let error):
            // The address failed: everything queued for it fails over now rather than at its deadline.
            let failure = HTTPDNSTransportError.connecting(error, address: address, timeoutMillis: timeoutMillis)
            let failed = waiting
            waiting.removeAll()
            for exchange in failed {
                exchange.detach = nil
                exchange.finish(.failure(failure))
            }
        case .success(let upstream):
            if HTTPDNSRoute.selectedALPN(upstream) == HTTPDNSResponse.http2 {
                negotiated = .http2
                let connection = HTTP2Connection(upstream: upstream, route: self, base: base, endpoint: endpoint, limits: limits)
                if let http2, http2.isUsable {
                    // A second connect raced the first: one connection per address is enough.
                    connection.close()
                } else if connection.isUsable {
                    http2 = connection
                }
            } else {
                negotiated = .http1
                let connection = HTTP1Connection(upstream: upstream, route: self)
                keepIdle(connection)
            }
            pump()
        }
    }

    /// RFC 7301 §3.2: the protocol the server picked, nil without TLS or when it picked none.
    private static func selectedALPN(_ upstream: UpstreamConnection) -> String? {
        guard upstream.isTLS, let ssl = upstream.socket.ssl else { return nil }
        var name: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &name, &length)
        guard let name, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: name, count: Int(length)), as: UTF8.self)
    }

    private func keepIdle(_ connection: HTTP1Connection) {
        if idle.count >= limits.maximumIdleHTTP1Connections {
            idle.removeFirst().close()
        }
        connection.waitIdle(timeoutMillis: limits.idleTimeoutMillis)
        idle.append(connection)
    }

    /// From an HTTP/1.1 connection whose exchange ended: it goes to the next waiting exchange,
    /// idles, or (closed) is forgotten.
    func http1Finished(_ connection: HTTP1Connection, reusable: Bool) {
        busy.removeAll { $0 === connection }
        if reusable {
            if !waiting.isEmpty {
                busy.append(connection)
                connection.start(waiting.removeFirst())
            } else {
                keepIdle(connection)
            }
        }
        pump()
    }

    /// From an idle HTTP/1.1 connection the server closed, or whose idle time ran out.
    func idleHTTP1Ended(_ connection: HTTP1Connection) {
        idle.removeAll { $0 === connection }
    }

    /// From an HTTP/2 connection that closed, received GOAWAY, or freed a stream slot.
    func http2Changed(_ connection: HTTP2Connection) {
        if connection.isClosed {
            if http2 === connection { http2 = nil }
            draining.removeAll { $0 === connection }
        }
        pump()
    }

    /// Closes every connection; exchanges still in flight fail with `connectionClosed`.
    func close() {
        let failed = waiting
        waiting.removeAll()
        for connector in connectors.values { connector.cancel() }
        connectors.removeAll()
        let connections = idle + busy
        idle.removeAll()
        busy.removeAll()
        let http2Connections = (http2.map { [$0] } ?? []) + draining
        http2 = nil
        draining.removeAll()
        for exchange in failed {
            exchange.detach = nil
            exchange.finish(.failure(.connectionClosed("the transport was closed")))
        }
        for connection in connections { connection.closeFailingExchange() }
        for connection in http2Connections { connection.closeAndSettle() }
    }
}

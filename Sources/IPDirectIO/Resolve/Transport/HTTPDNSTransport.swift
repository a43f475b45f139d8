import CEvent
import IPDirectCore

/// The HTTP client to one HTTPDNS endpoint, used only on the thread of its event loop. It speaks
/// HTTP/2 where the endpoint negotiates `h2` by ALPN and HTTP/1.1 otherwise (plain http:// is always
/// HTTP/1.1), keeps connections per bootstrap address for reuse, and reads no environment at all:
/// http_proxy and friends never apply, the daemon's resolver traffic goes direct by construction.
final class HTTPDNSTransport {
    /// Connection limits per address; the defaults suit a resolver's small, bursty traffic.
    struct Limits {
        /// HTTP/1.1 connections open (or opening) to one address at once; further requests queue.
        var maximumHTTP1Connections = 4
        /// Idle HTTP/1.1 connections kept per address for reuse; the oldest is closed past this.
        var maximumIdleHTTP1Connections = 2
        /// An idle connection (HTTP/1.1 with no request, HTTP/2 with no stream) is closed after this.
        var idleTimeoutMillis = 30_000
        /// Streams ipdirect opens at once on one HTTP/2 connection, even if the server allows more.
        var maximumConcurrentStreams = 100
        /// Largest response body accepted.
        var bodyLimit = ProviderAnswerLimits.maximumBodySize
    }

    /// ALPN offered to HTTPS endpoints, HTTP/2 preferred (RFC 9113 §3.2).
    static let alpnProtocols = [HTTPDNSResponse.http2, HTTPDNSResponse.http11]

    let endpoint: HTTPDNSEndpoint
    private let base: EventBase
    private let tls: TLSClientContext?
    private let timeoutMillis: Int
    private let limits: Limits
    private var routes: [SocketAddress: HTTPDNSRoute] = [:]

    /// `tls` is required for an https endpoint and ignored otherwise; make it with `makeTLSContext`.
    init(base: EventBase, endpoint: HTTPDNSEndpoint, tls: TLSClientContext?, timeoutMillis: Int,
         limits: Limits = Limits()) {
        precondition(!endpoint.isHTTPS || tls != nil, "an https HTTPDNS endpoint needs a TLS context")
        self.base = base
        self.endpoint = endpoint
        self.tls = endpoint.isHTTPS ? tls : nil
        self.timeoutMillis = timeoutMillis
        self.limits = limits
    }

    private var isShutDown = false

    deinit { closeAll() }

    /// A TLS context offering h2 and http/1.1 and trusting `trust`, which may be the proxy's own store;
    /// `pins` maps the endpoint's host to the key digests its chain must carry one of.
    static func makeTLSContext(trust: TrustStore, pins: [String: [String]] = [:]) throws(StartupError) -> TLSClientContext {
        try TLSClientContext(trust: trust, pins: pins, alpn: alpnProtocols)
    }

    /// Sends `request` to `address`:endpoint.port; the completion runs exactly once on the loop thread,
    /// unless the returned handle is cancelled first. `timeoutMillis` bounds the whole exchange
    /// (connect, TLS, request, full response).
    func send(_ request: HTTPDNSRequest, to address: IPAddress,
              completion: @escaping (Result<HTTPDNSResponse, HTTPDNSTransportError>) -> Void) -> ResolveHandle {
        let target = SocketAddress(ip: address, port: endpoint.port)
        let exchange = HTTPDNSExchange(base: base, request: request, address: target, timeoutMillis: timeoutMillis,
                                       completion: completion)
        if let problem = HTTPDNSRequestEncoder.problem(in: request) {
            exchange.finish(.failure(.invalidRequest(problem)))
            return exchange
        }
        if isShutDown {
            exchange.finish(.failure(.connectionClosed("the resolver is stopping")))
            return exchange
        }
        let route = routes[target] ?? makeRoute(target)
        route.enqueue(exchange)
        return exchange
    }

    private func makeRoute(_ address: SocketAddress) -> HTTPDNSRoute {
        let route = HTTPDNSRoute(address: address, endpoint: endpoint, base: base, tls: tls,
                                 timeoutMillis: timeoutMillis, limits: limits)
        routes[address] = route
        return route
    }

    /// Closes every connection for good: later sends fail at once instead of connecting again, so a
    /// failover that runs while the daemon stops opens nothing new.
    func shutDown() {
        isShutDown = true
        closeAll()
    }

    /// Closes every connection; exchanges in flight fail with `connectionClosed`.
    func closeAll() {
        let closing = routes.values
        routes.removeAll()
        for route in closing { route.close() }
    }

    /// TCP connections open or being opened to `address`, for tests and diagnostics.
    func connectionCount(to address: IPAddress) -> Int {
        routes[SocketAddress(ip: address, port: endpoint.port)]?.connectionCount ?? 0
    }
}

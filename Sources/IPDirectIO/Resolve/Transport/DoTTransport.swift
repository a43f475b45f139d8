import CEvent
import IPDirectCore

/// The DNS-over-TLS client of one provider (RFC 7858), used only on the thread of its event loop: one
/// pipelined connection per bootstrap address in use (normally the first, so one per provider), each a
/// `DoTConnection`. Like `HTTPDNSTransport` it reads no environment: resolver traffic goes direct.
final class DoTTransport: ProviderTransport {
    /// RFC 7301 §6 / IANA: the ALPN identifier of DNS over TLS. Offering it tells a server that also
    /// serves DoH on this port (unbound can) which protocol follows.
    static let alpnProtocols = ["dot"]
    /// What the answers are reported as to the provider, which reads them as DNS messages.
    static let protocolName = "dot"

    let endpoint: HTTPDNSEndpoint
    private let base: EventBase
    private let provider: String
    private let tls: TLSClientContext
    private let timeoutMillis: Int
    private var connections: [SocketAddress: DoTConnection] = [:]
    private var isShutDown = false
    /// Runs each time one of the connections opens (a first connect or a reconnect).
    var connectionOpened: (() -> Void)?

    init(base: EventBase, provider: String, endpoint: HTTPDNSEndpoint, tls: TLSClientContext, timeoutMillis: Int) {
        self.base = base
        self.provider = provider
        self.endpoint = endpoint
        self.tls = tls
        self.timeoutMillis = timeoutMillis
    }

    deinit { shutDown() }

    /// A TLS context trusting `trust` (and requiring `pins`, host to key digests), offering only `dot`.
    static func makeTLSContext(trust: TrustStore, pins: [String: [String]]) throws(StartupError) -> TLSClientContext {
        try TLSClientContext(trust: trust, pins: pins, alpn: alpnProtocols)
    }

    /// The DNS message is the request's body; the deadline covers a reconnect and resend too.
    func send(_ request: HTTPDNSRequest, to address: IPAddress,
              completion: @escaping (Result<HTTPDNSResponse, HTTPDNSTransportError>) -> Void) -> ResolveHandle {
        let target = SocketAddress(ip: address, port: endpoint.port)
        let exchange = HTTPDNSExchange(base: base, request: request, address: target, timeoutMillis: timeoutMillis,
                                       completion: completion)
        guard !isShutDown else {
            exchange.finish(.failure(.connectionClosed("the resolver is stopping")))
            return exchange
        }
        connection(to: target).enqueue(exchange)
        return exchange
    }

    private func connection(to target: SocketAddress) -> DoTConnection {
        if let existing = connections[target] { return existing }
        let made = DoTConnection(address: target, endpoint: endpoint, provider: provider, base: base, tls: tls,
                                 timeoutMillis: timeoutMillis) { [weak self] in self?.connectionOpened?() }
        connections[target] = made
        return made
    }

    func shutDown() {
        isShutDown = true
        let closing = connections.values
        connections.removeAll()
        for connection in closing { connection.close() }
    }
}

import CEvent
import Glibc
import IPDirectCore

/// One DNS-over-TLS connection to one server address, reopened when needed: it performs what its
/// `DoTPipeline` decides (connect, send, deliver, drop, fail, close) and turns bytes into its events.
/// Messages go in both directions with the 2-octet length prefix of DNS over TCP (RFC 7858 §3.3,
/// RFC 1035 §4.2.2).
final class DoTConnection {
    /// One query as the pipeline's ticket names it.
    private struct Entry {
        let exchange: HTTPDNSExchange
        /// The padded query with ID 0; the pipeline's ID goes into its first two octets when sent.
        let message: [UInt8]
    }

    let address: SocketAddress
    private let endpoint: HTTPDNSEndpoint
    private let provider: String
    private let base: EventBase
    private let tls: TLSClientContext
    private let timeoutMillis: Int
    private var pipeline = DoTPipeline<Int, DNSQuestion>()
    private var entries: [Int: Entry] = [:]
    private var nextTicket = 0
    private var connector: Connector?
    private var upstream: UpstreamConnection?
    private let idleTimer: Timer
    /// What failed last (a connect, a lost connection): the reason given to queries the pipeline fails.
    private var lastFailure = HTTPDNSTransportError.connectionClosed("the connection was lost")
    /// TLS connections opened successfully, for the log: more than one means reconnects.
    private var connectionsOpened = 0
    /// Told of each opened connection, for the metrics.
    private let opened: () -> Void

    init(address: SocketAddress, endpoint: HTTPDNSEndpoint, provider: String, base: EventBase,
         tls: TLSClientContext, timeoutMillis: Int, opened: @escaping () -> Void) {
        self.address = address
        self.endpoint = endpoint
        self.provider = provider
        self.base = base
        self.tls = tls
        self.timeoutMillis = timeoutMillis
        self.opened = opened
        idleTimer = Timer(base: base)
        idleTimer.action = { [unowned self] in perform(pipeline.tick(now: Self.nowMillis())) }
    }

    deinit { close() }

    private static func nowMillis() -> Int64 { MonotonicClock.nowMicros() / 1000 }

    private var logPrefix: String { "provider=\(provider) address=\(address)" }

    /// Queues the DNS message in `exchange`'s request body; the question written in it is what the
    /// reply must echo.
    func enqueue(_ exchange: HTTPDNSExchange) {
        let message = exchange.request.body
        guard message.count > DNSAnswer.headerSize, case .success(let question) = DNSQuestion.read(message),
              message.count <= DNSAnswer.maximumMessageSize else {
            return exchange.finish(.failure(.invalidRequest("the request body is not a DNS query")))
        }
        let ticket = nextTicket
        nextTicket += 1
        entries[ticket] = Entry(exchange: exchange, message: message)
        exchange.detach = { [weak self] in self?.abandon(ticket) }
        perform(pipeline.submit(ticket, question: question, now: Self.nowMillis()))
    }

    private func perform(_ actions: [DoTPipeline<Int, DNSQuestion>.Action], reply: [UInt8] = []) {
        for action in actions {
            switch action {
            case .connect:
                connect()
            case .send(let ticket, let id):
                guard let entry = entries[ticket], let upstream else { continue }
                var message = entry.message
                message[0] = UInt8(id >> 8)
                message[1] = UInt8(id & 0xFF)
                entry.exchange.phase = .awaitingResponse
                DNSStreamFraming.append(message, to: upstream.socket.output)
            case .deliver(let ticket):
                guard let entry = entries.removeValue(forKey: ticket) else { continue }
                entry.exchange.detach = nil
                entry.exchange.finish(.success(HTTPDNSResponse(status: 200, contentType: ProviderQueryPlan.dnsMessageType,
                                                               body: reply, protocolName: DoTTransport.protocolName)))
            case .drop(let mismatch):
                Logger.warning("event=dot_reply_dropped \(logPrefix) reason=\"\(mismatch)\"")
            case .fail(let ticket):
                guard let entry = entries.removeValue(forKey: ticket) else { continue }
                entry.exchange.detach = nil
                entry.exchange.finish(.failure(lastFailure))
            case .close:
                Logger.info("event=dot_connection_idle_closed \(logPrefix)")
                closeUpstream()
            }
        }
        if let deadline = pipeline.idleDeadline {
            idleTimer.schedule(afterMillis: Int(max(0, deadline - Self.nowMillis())))
        } else {
            idleTimer.cancel()
        }
    }

    private func connect() {
        for entry in entries.values { entry.exchange.phase = .connecting }
        // TCP_NODELAY, SNI, the name check (SSL_set1_host), TLS 1.2 at least, the pins and the resumption of
        // the last session for this host and port all come with the Connector and the TLS context.
        let connector = Connector(base: base, hostPort: endpoint.authority,
                                  addresses: [address], timeoutMillis: timeoutMillis,
                                  tls: (tls, endpoint.host)) { [unowned self] result in
            self.connector = nil
            connected(result)
        }
        self.connector = connector
        connector.start()
    }

    private func connected(_ result: Result<UpstreamConnection, ConnectFailure>) {
        switch result {
        case .failure(let failure):
            lastFailure = HTTPDNSTransportError.connecting(failure, address: address, timeoutMillis: timeoutMillis)
            Logger.info("event=dot_connect_failed \(logPrefix) reason=\"\(lastFailure)\"")
            perform(pipeline.connectFailed())
        case .success(let upstream):
            self.upstream = upstream
            connectionsOpened += 1
            opened()
            Logger.info("event=dot_connection_opened \(logPrefix) resumed=\(upstream.tlsSessionResumed) opened=\(connectionsOpened)")
            upstream.socket.handOver(to: self, calling: BufferEventCallbacks.dot)
            upstream.socket.resumeReadingAndWriting()
            perform(pipeline.connected(now: Self.nowMillis()))
        }
    }

    /// Takes every complete message off the stream; a partial one waits for more bytes.
    func didRead() {
        guard let upstream else { return }
        while let message = DNSStreamFraming.takeMessage(from: upstream.socket.input) {
            received(message)
            // A delivery may have closed the connection (the provider stopping).
            if self.upstream == nil { return }
        }
    }

    private func received(_ message: [UInt8]) {
        guard message.count > DNSAnswer.headerSize, case .success(let question) = DNSQuestion.read(message) else {
            return Logger.warning("event=dot_reply_dropped \(logPrefix) reason=\"a \(message.count)-octet message without a readable question\"")
        }
        let id = UInt16(message[0]) << 8 | UInt16(message[1])
        perform(pipeline.received(id: id, question: question, now: Self.nowMillis()), reply: message)
    }

    func didReceive(events: Int16) {
        let code = errno
        guard let upstream else { return }
        let reason: String
        if events & Int16(BEV_EVENT_EOF) != 0 {
            reason = "the server closed the connection"
        } else if events & Int16(BEV_EVENT_ERROR) != 0 {
            reason = upstream.socket.takeOpenSSLError() ?? Connector.errnoText(code)
        } else {
            return
        }
        Logger.info("event=dot_connection_lost \(logPrefix) in_flight=\(pipeline.inFlightCount) reason=\"\(reason)\"")
        lastFailure = .connectionClosed(reason)
        closeUpstream()
        perform(pipeline.connectionLost())
    }

    /// The query's deadline passed or it was cancelled: its slot is freed, and its reply, if it ever
    /// comes, is dropped as unknown.
    private func abandon(_ ticket: Int) {
        guard entries.removeValue(forKey: ticket) != nil else { return }
        perform(pipeline.cancel(ticket, now: Self.nowMillis()))
    }

    private func closeUpstream() {
        upstream?.close()
        upstream = nil
    }

    /// Closes for good; queries still waiting fail with `connectionClosed`.
    func close() {
        idleTimer.cancel()
        connector?.cancel()
        connector = nil
        closeUpstream()
        let failed = entries.values
        entries.removeAll()
        for entry in failed {
            entry.exchange.detach = nil
            entry.exchange.finish(.failure(.connectionClosed("the transport was closed")))
        }
    }
}

import CEvent
import Glibc
import IPDirectCore

/// One client connection: reads request heads, sends each request upstream by IP, relays the
/// response, and turns into a byte relay for CONNECT and 101 upgrades. Requests on one connection
/// are served strictly in order, so pipelined requests are answered in order.
final class ClientSession {
    /// Output buffered toward one side past which the other side stops being read (le-proxy's MAX_OUTPUT).
    static let outputHighWater = 512 * 1024
    /// Input read ahead from either socket before reading pauses.
    static let inputHighWater = 256 * 1024
    /// Largest single read or write; libevent's 16 KiB default costs a syscall per 16 KiB of a bulk transfer.
    static let maxSingleIO = 128 * 1024
    /// Bytes pulled up at once to parse chunked framing: enough for the scanner to see past its own
    /// limits (a chunk-size line, or a whole trailer section) and refuse, rather than wait forever.
    static let controlPeekBytes = ChunkedBodyScanner.defaultMaxTrailerBytes + ChunkedBodyScanner.defaultMaxControlBytes + 2
    /// Interim (1xx) responses forwarded for one request before the server counts as misbehaving.
    static let maxInterimResponses = 32
    /// How long a closing connection keeps reading (and discarding) so an early error response is
    /// not destroyed by a TCP reset for unread request bytes (nginx's lingering close).
    static let lingerMillis = 2000

    enum State: CustomStringConvertible {
        /// Waiting for a complete request head; next: resolving, an error answer, or closing.
        case readingHead
        /// Upstream host lookup in flight; next: connecting or an error answer.
        case resolving
        /// Trying upstream addresses; next: forwarding, tunneling or an error answer.
        case connecting
        /// Request sent (its body may still stream); reading and relaying the response.
        case forwarding
        /// CONNECT or a 101 upgrade: relaying bytes both ways until both directions close.
        case tunneling
        /// Flushing the last bytes to the client, then lingering briefly before freeing.
        case closing
        /// Freed; no callback can reach it any more.
        case closed

        var description: String {
            switch self {
            case .readingHead: return "reading_head"
            case .resolving: return "resolving"
            case .connecting: return "connecting"
            case .forwarding: return "forwarding"
            case .tunneling: return "tunneling"
            case .closing: return "closing"
            case .closed: return "closed"
            }
        }
    }

    unowned let worker: Worker
    /// Taken when the connection was accepted: a reload changes what later connections get, never
    /// what this one uses.
    let configuration: ConnectionSettings
    /// `configuration.proxy`, the settings read on every step.
    let settings: ProxySettings
    let id: UInt64
    let client: OpaquePointer
    let peer: String
    var state: State = .readingHead
    var exchange: Exchange?
    var upstream: UpstreamConnection?
    var lookup: ResolveHandle?
    var connector: Connector?
    /// The kernel-side relay of an established tunnel, when one is running.
    var splice: SpliceTunnel?
    let timer: Timer
    var idleLimitMicros: Int64 = 0
    var lastActivityMicros: Int64 = 0
    var timeoutReason = ""
    var clientReadClosed = false
    /// The tunnel gauge counts this connection, until it closes.
    var tunnelCounted = false
    var clientWriteShut = false
    var upstreamReadClosed = false
    var upstreamWriteShut = false
    private var parsingInput = false
    /// Heads built by the proxy that leave together with the first body bytes behind them.
    var pendingUpstreamHead: [UInt8] = []
    var pendingClientHead: [UInt8] = []
    /// Bytes of the buffered head already known to hold no line feed: the parser only runs once a new line
    /// has arrived, so a client trickling a head byte by byte costs linear, not quadratic, work.
    private var headBytesWithoutNewline = 0

    init(worker: Worker, id: UInt64, client: OpaquePointer, peer: String) {
        self.worker = worker
        configuration = worker.connectionSettings
        settings = configuration.proxy
        self.id = id
        self.client = client
        self.peer = peer
        timer = Timer(base: worker.base)
        timer.action = { [unowned self] in timerFired() }
    }

    var clientInput: OpaquePointer { bufferevent_get_input(client) }
    var clientOutput: OpaquePointer { bufferevent_get_output(client) }

    func start() {
        bufferevent_setcb(client, BufferEventCallbacks.sessionRead, BufferEventCallbacks.sessionWrite,
                          BufferEventCallbacks.sessionEvent, Unmanaged.passUnretained(self).toOpaque())
        configureFlow(client)
        // A client that stops reading our output for this long is gone.
        var writeTimeout = timeval(tv_sec: settings.clientIdleTimeoutMs / 1000, tv_usec: settings.clientIdleTimeoutMs % 1000 * 1000)
        bufferevent_set_timeouts(client, nil, &writeTimeout)
        // Writing is enabled from creation; enabling it again would arm EPOLLOUT with nothing to write.
        bufferevent_enable(client, Int16(EV_READ))
        setIdleLimit(millis: settings.headerTimeoutMs, reason: "header_timeout")
    }

    // MARK: - Callbacks

    func didRead(_ bev: OpaquePointer) {
        if bev == client {
            switch state {
            case .readingHead: parseClientInput()
            case .forwarding: pumpRequestBody()
            case .tunneling: relay(fromClient: true)
            case .closing: evbuffer_drain(clientInput, evbuffer_get_length(clientInput))
            case .resolving, .connecting, .closed: break
            }
        } else {
            switch state {
            case .forwarding:
                if exchange?.responseStarted == true { pumpResponseBody() } else { parseResponseHeads() }
            case .tunneling: relay(fromClient: false)
            default: break
            }
        }
    }

    func didDrain(_ bev: OpaquePointer) {
        if bev == client {
            switch state {
            case .forwarding:
                if let upstream, !upstreamReadClosed { ClientSession.resumeReading(upstream.bev) }
                if exchange?.responseStarted == true { pumpResponseBody() } else { parseResponseHeads() }
            case .tunneling:
                if let upstream, !upstreamReadClosed { ClientSession.resumeReading(upstream.bev) }
                finishHalfClose()
            case .closing:
                if evbuffer_get_length(clientOutput) == 0 { lingerThenClose() }
            case .readingHead:
                if !clientReadClosed { ClientSession.resumeReading(client) }
                parseClientInput()
            default: break
            }
        } else {
            switch state {
            case .forwarding:
                if !clientReadClosed { ClientSession.resumeReading(client) }
                pumpRequestBody()
            case .tunneling:
                if !clientReadClosed { ClientSession.resumeReading(client) }
                finishHalfClose()
            default: break
            }
        }
    }

    func didReceive(_ bev: OpaquePointer, events: Int16) {
        let eof = events & Int16(BEV_EVENT_EOF) != 0
        let error = events & Int16(BEV_EVENT_ERROR) != 0
        let timeout = events & Int16(BEV_EVENT_TIMEOUT) != 0
        let reason = error ? Connector.errnoText(errno) : (timeout ? "timed out" : "closed")
        if bev == client {
            clientDidClose(eof: eof && !error && !timeout, reason: reason)
        } else {
            upstreamDidClose(eof: eof && !error, timeout: timeout, reason: reason)
        }
    }

    // MARK: - Request heads

    /// Parses as many complete request heads as are buffered, one exchange at a time.
    func parseClientInput() {
        guard !parsingInput else { return }
        parsingInput = true
        defer { parsingInput = false }
        while state == .readingHead {
            // Answers the proxy makes itself must not pile up behind a client that does not read them.
            if evbuffer_get_length(clientOutput) >= ClientSession.outputHighWater {
                bufferevent_disable(client, Int16(EV_READ))
                return
            }
            let length = evbuffer_get_length(clientInput)
            guard length > 0 else {
                if clientReadClosed { beginClosing() }
                return
            }
            if timeoutReason == "client_idle_timeout" {
                // The first byte of a new request starts the head deadline.
                setIdleLimit(millis: settings.headerTimeoutMs, reason: "header_timeout")
            }
            let peek = min(length, settings.maxHeaderBytes + 1)
            guard hasNewLine(within: peek) || peek > settings.maxHeaderBytes else {
                if clientReadClosed { close() }
                return
            }
            guard let start = evbuffer_pullup(clientInput, peek) else { return }
            let bytes = UnsafeRawBufferPointer(start: start, count: peek)
            switch RequestHeadParser.parse(bytes, limits: configuration.headLimits) {
            case .incomplete:
                headBytesWithoutNewline = peek
                if clientReadClosed { close() }
                return
            case .invalid(let parseError):
                exchange = nil
                respond(with: .badRequest(parseError))
            case .complete(let head):
                begin(head, bytes: bytes)
            }
        }
    }

    private func hasNewLine(within count: Int) -> Bool {
        guard count > headBytesWithoutNewline else { return false }
        var from = evbuffer_ptr()
        guard evbuffer_ptr_set(clientInput, &from, headBytesWithoutNewline, EVBUFFER_PTR_SET) == 0 else { return true }
        let found = evbuffer_search_range(clientInput, "\n", 1, &from, nil)
        if found.pos >= 0 && found.pos < count { return true }
        headBytesWithoutNewline = count
        return false
    }

    private func begin(_ head: RequestHead, bytes: UnsafeRawBufferPointer) {
        cancelIdleLimit()
        headBytesWithoutNewline = 0
        let method = String(decoding: bytes[head.methodBytes], as: UTF8.self)
        let now = MonotonicClock.nowMicros()
        switch head.target {
        case .authority(let host, let port):
            evbuffer_drain(clientInput, head.headLength)
            exchange = Exchange(method: method, methodKind: head.method, host: host, port: port, isConnect: true,
                                keepAlive: false, upgradeRequested: false, startMicros: now,
                                clientVersion: head.version)
            exchange!.bytesFromClient = UInt64(head.headLength)
            guard configuration.policy.permitsTunnel(toPort: port) else {
                return respond(with: ProxyError(status: 403, kind: .httpRequestDenied,
                                                details: "CONNECT to port \(port) is not allowed (access.connect_ports)"))
            }
            resolveUpstream()
        case .absolute(let scheme, let host, let port, let authority, _):
            var current = Exchange(method: method, methodKind: head.method, host: host, port: port, isConnect: false,
                                   keepAlive: head.keepAlive, upgradeRequested: head.upgradeRequested,
                                   startMicros: now, clientVersion: head.version)
            current.scheme = scheme
            current.requestBody = BodyProgress(head.framing)
            current.requestHadBody = !current.requestBody.isComplete
            current.bytesFromClient = UInt64(head.headLength)
            current.upstreamHead = HeadRewriter.upstreamRequest(
                head, in: bytes, hostValue: String(decoding: bytes[authority], as: UTF8.self),
                viaName: settings.viaName, keepUpgrade: head.upgradeRequested, close: false)
            if scheme == .http, let upgradedPort = configuration.upstream.httpsUpgradePort(for: host) {
                // [upstream] https_upgrade: the client speaks plain HTTP to us, the wire carries TLS.
                current.scheme = .https
                current.port = upgradedPort
            }
            exchange = current
            evbuffer_drain(clientInput, head.headLength)
            if let failure = invalidBufferedChunkedBody() {
                return respond(with: .badRequest(failure))
            }
            // Every request looks its host up, pooled connection or not (a cache hit costs microseconds):
            // a changed answer or ranking moves keep-alive traffic too.
            resolveUpstream()
        case .origin(let target) where ClientSession.asksForPAC(head.method, UnsafeRawBufferPointer(rebasing: bytes[target])):
            evbuffer_drain(clientInput, head.headLength)
            exchange = Exchange(method: method, methodKind: head.method, host: "-", port: 0, isConnect: false,
                                keepAlive: head.keepAlive, upgradeRequested: false, startMicros: now,
                                clientVersion: head.version)
            exchange!.requestBody = BodyProgress(head.framing)
            exchange!.bytesFromClient = UInt64(head.headLength)
            servePAC(headOnly: head.method == .head)
        case .origin, .asterisk:
            evbuffer_drain(clientInput, head.headLength)
            exchange = Exchange(method: method, methodKind: head.method, host: "-", port: 0, isConnect: false,
                                keepAlive: head.keepAlive, upgradeRequested: false, startMicros: now,
                                clientVersion: head.version)
            exchange!.requestBody = BodyProgress(head.framing)
            exchange!.requestHadBody = !exchange!.requestBody.isComplete
            respond(with: ProxyError(status: 400, kind: .httpRequestError,
                                     details: "not a proxy request: send absolute-form (http://host/path) or CONNECT host:port"))
        }
    }

    /// Checks the chunked framing of the body bytes that arrived with the head, so that a request
    /// whose framing is already known to be broken never causes an upstream connection.
    private func invalidBufferedChunkedBody() -> HTTPParseError? {
        guard case .chunked(var scanner) = exchange?.requestBody else { return nil }
        let length = min(evbuffer_get_length(clientInput), ClientSession.inputHighWater)
        guard length > 0, let start = evbuffer_pullup(clientInput, length) else { return nil }
        let bytes = UnsafeRawBufferPointer(start: start, count: length)
        var offset = 0
        while offset < length {
            switch scanner.step {
            case .passData(let count):
                let skipped = Int(min(count, UInt64(length - offset)))
                scanner.didPassData(UInt64(skipped))
                offset += skipped
            case .needControl:
                switch scanner.scanControl(UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
                case .incomplete, .finished: return nil
                case .consumed(let count): offset += count
                case .invalid(let failure): return failure
                }
            }
        }
        return nil
    }

    // MARK: - Resolving and connecting

    func resolveUpstream() {
        guard let host = exchange?.host else { return }
        state = .resolving
        let started = MonotonicClock.nowMicros()
        let lookup = configuration.resolver.resolve(host) { [unowned self] result in
            self.lookup = nil
            resolved(result, startedAt: started)
        }
        switch lookup {
        case .done(let result): resolved(result, startedAt: started)
        case .pending(let handle):
            // A lookup answered synchronously may already have led to a new lookup; keep that one.
            if !handle.isFinished { self.lookup = handle }
        }
    }

    private func resolved(_ result: Result<Resolution, ResolveFailure>, startedAt: Int64) {
        guard state == .resolving, var current = exchange else { return }
        current.resolveMicros = MonotonicClock.nowMicros() - startedAt
        current.resolveFinished = true
        switch result {
        case .failure(let failure):
            exchange = current
            // A live pooled connection to an address that works still serves the request when the name
            // cannot be looked up now (every source down past serve_stale).
            if !current.isConnect, !current.retriedOnFreshConnection,
               let pooled = worker.pool.checkout(key: current.poolKey, where: { !worker.health.isQuarantined($0) }) {
                exchange!.source = "pool"
                exchange!.note = "resolution failed, a pooled connection was reused: \(failure)"
                return attach(pooled)
            }
            respond(with: failure.proxyError)
        case .success(let resolution):
            current.source = resolution.sourceLabel
            current.cacheAgeMillis = resolution.cache.ageMillis
            exchange = current
            switch configuration.policy.permittedAddresses(resolution, host: current.host) {
            case .failure(let denied):
                respond(with: denied)
            case .success(let addresses):
                connect(following: plan(for: current, addresses: addresses))
            }
        }
    }

    /// The order to try the host's addresses in, from what every worker learned of them. (New answers
    /// of `[[upstream.probe]]` hosts are probed where the resolver stores them, not per request.)
    private func plan(for current: Exchange, addresses: [IPAddress]) -> AddressPlan {
        let candidates = addresses.map { SocketAddress(ip: $0, port: current.port) }
        return worker.health.plan(for: current.hostKey, candidates: candidates,
                                  mode: configuration.upstream.balanceMode(for: current.host))
    }

    private func connect(following plan: AddressPlan) {
        guard let current = exchange else { return }
        exchange!.firstByteWanted = plan.order.count > 1
        if !current.isConnect, !current.retriedOnFreshConnection,
           let pooled = worker.pool.checkout(key: current.poolKey, plan: plan) {
            exchange!.source = "pool"
            exchange!.addressRank = plan.rank(of: pooled.address)
            return attach(pooled)
        }
        state = .connecting
        let started = MonotonicClock.nowMicros()
        // We connect by IP, so SNI and certificate verification must use the name the client asked for.
        let tls = current.scheme == .https ? (context: configuration.tls, host: current.host) : nil
        let connector = Connector(base: worker.base, key: current.poolKey, hostPort: current.hostPort,
                                  addresses: plan.order, timeoutMillis: settings.connectTimeoutMs,
                                  attemptDelayMillis: configuration.upstream.connectionAttemptDelayMs, health: worker.health,
                                  hostKey: current.hostKey, tls: tls) { [unowned self] result in
            exchange?.connectAttempts = self.connector?.attemptsStarted ?? 0
            exchange?.addressRank = self.connector?.winnerRank
            self.connector = nil
            exchange?.connectMicros = MonotonicClock.nowMicros() - started
            exchange?.connectFinished = true
            switch result {
            case .failure(let failure):
                let error = failure.proxyError
                worker.metrics.update { $0.countUpstreamFailure(error.kind) }
                respond(with: error)
            case .success(let connection):
                worker.health.recordUsed(connection.address, for: current.hostKey)
                attach(connection)
            }
        }
        self.connector = connector
        connector.start()
    }

    /// Takes ownership of an upstream connection and starts the exchange on it.
    private func attach(_ connection: UpstreamConnection) {
        guard let current = exchange else { return connection.close() }
        upstream = connection
        upstreamReadClosed = false
        upstreamWriteShut = false
        exchange!.upstreamAddress = connection.addressText
        bufferevent_setcb(connection.bev, BufferEventCallbacks.sessionRead, BufferEventCallbacks.sessionWrite,
                          BufferEventCallbacks.sessionEvent, Unmanaged.passUnretained(self).toOpaque())
        configureFlow(connection.bev)
        if current.isConnect {
            bufferevent_set_timeouts(connection.bev, nil, nil)
            bufferevent_enable(connection.bev, Int16(EV_READ))
            let established = Array("HTTP/1.1 200 Connection Established\r\n\r\n".utf8)
            sendToClient(established)
            exchange!.status = 200
            startTunnel()
        } else {
            bufferevent_set_timeouts(connection.bev, nil, nil)
            bufferevent_enable(connection.bev, Int16(EV_READ))
            state = .forwarding
            if !current.requestBody.isComplete {
                setIdleLimit(millis: settings.clientIdleTimeoutMs, reason: "client_idle_timeout")
            }
            pendingUpstreamHead = current.upstreamHead
            pumpRequestBody()
        }
    }

    /// A reused connection that the server closed before answering is retried once on a fresh one,
    /// when nothing of the request body has been consumed (RFC 9110 §9.2.2).
    func retryOnFreshConnection() -> Bool {
        guard let current = exchange, let upstream, upstream.reused, !current.receivedResponseBytes,
              !current.requestHadBody, !current.retriedOnFreshConnection else { return false }
        upstream.close()
        self.upstream = nil
        exchange!.retriedOnFreshConnection = true
        exchange!.responseTimeoutArmed = false
        resolveUpstream()
        return true
    }

    // MARK: - Helpers

    /// Re-enables reading paused for flow control; a no-op (no event_add) when it was not paused.
    static func resumeReading(_ bev: OpaquePointer) {
        if bufferevent_get_enabled(bev) & Int16(EV_READ) == 0 {
            bufferevent_enable(bev, Int16(EV_READ))
        }
    }

    /// Read and write sizes and the watermarks that drive flow control between the two sides. Reading
    /// never pauses before a whole head of `max_header_bytes` (plus one byte, to see it is too large) fits.
    func configureFlow(_ bev: OpaquePointer) {
        let readHighWater = max(ClientSession.inputHighWater, settings.maxHeaderBytes + 1)
        bufferevent_setwatermark(bev, Int16(EV_READ), 0, readHighWater)
        bufferevent_setwatermark(bev, Int16(EV_WRITE), ClientSession.outputHighWater / 2, 0)
        bufferevent_set_max_single_read(bev, ClientSession.maxSingleIO)
        bufferevent_set_max_single_write(bev, ClientSession.maxSingleIO)
    }

    func sendToClient(_ bytes: [UInt8]) {
        ByteTransfer.send(bytes, to: client)
        exchange?.bytesToClient += UInt64(bytes.count)
    }

    func setIdleLimit(millis: Int, reason: String) {
        idleLimitMicros = Int64(millis) * 1000
        lastActivityMicros = MonotonicClock.nowMicros()
        timeoutReason = reason
        timer.schedule(afterMillis: millis)
    }

    func cancelIdleLimit() {
        idleLimitMicros = 0
        timeoutReason = ""
        timer.cancel()
    }

    /// Timers are re-armed lazily: activity only stamps `lastActivityMicros`, and the timer
    /// re-schedules itself for the rest of the window instead of being reset on every read.
    private func timerFired() {
        if state == .closing { return close() }
        guard idleLimitMicros > 0 else { return }
        let idle = MonotonicClock.nowMicros() - lastActivityMicros
        if idle < idleLimitMicros {
            timer.schedule(afterMillis: Int((idleLimitMicros - idle) / 1000) + 1)
            return
        }
        if state == .readingHead && evbuffer_get_length(clientOutput) > 0 {
            // Still delivering the last response: not idle. A client that stopped reading meets the write timeout.
            lastActivityMicros = MonotonicClock.nowMicros()
            timer.schedule(afterMillis: Int(idleLimitMicros / 1000))
            return
        }
        Logger.debug("session=\(id) client=\(peer) state=\(state) event=\(timeoutReason)")
        if state == .readingHead && evbuffer_get_length(clientInput) > 0 {
            respond(with: ProxyError(status: 408, kind: .httpRequestError,
                                     details: "request head not received within \(settings.headerTimeoutMs / 1000) s"))
        } else {
            exchange?.note = timeoutReason
            close()
        }
    }
}

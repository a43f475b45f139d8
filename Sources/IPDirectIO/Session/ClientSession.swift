import CEvent
import Glibc
import IPDirectCore

/// One client connection, driven by its `SessionMachine`: libevent callbacks, lookups and connects
/// become the machine's events, and the machine's actions are performed here. Bytes move between the
/// bufferevents (or through splice) and never enter Swift.
final class ClientSession: ConnectionSetMember {
    /// Input read ahead from either socket before reading pauses.
    static let inputHighWater = 256 * 1024
    /// Largest single read or write; libevent's 16 KiB default costs a syscall per 16 KiB of a bulk transfer.
    static let maxSingleIO = 128 * 1024

    /// The worker outlives every session it holds (`Worker.run` closes them before it returns), so the
    /// reference is neither counted nor checked: a checked `unowned` one costs a strong retain and release at
    /// every use, a dozen times per connection. On the request path it is borrowed (`withWorker`).
    private let workerHandle: Unmanaged<Worker>
    var worker: Worker { workerHandle.takeUnretainedValue() }
    /// The worker's loop clock, held here so that reading it takes no hop through `worker`.
    let clock: TurnClock
    /// Taken when the connection was accepted: a reload changes what later connections get, never
    /// what this one uses.
    private(set) var configuration: ConnectionSettings {
        didSet {
            settingsHandle = Unmanaged.passUnretained(configuration)
            headLimits = configuration.rules.headLimits
        }
    }
    /// `configuration`, for `withSettings`.
    private var settingsHandle: Unmanaged<ConnectionSettings>
    /// `configuration.rules.headLimits`, read on every head: kept at hand rather than read through two references.
    private(set) var headLimits: HTTPHeadLimits
    private(set) var id: UInt64
    var client: BufferedSocket
    /// Where the client connected from: the ACL's and the failed-login slow-down's key.
    private(set) var peerAddress: SocketAddress?
    /// `peerAddress` as text for the logs, made when a line first needs it: most connections never log one.
    private var peerText: String?
    var machine: SessionMachine
    /// The credential check in flight.
    var credentialCheck: CredentialHandle?
    var upstream: UpstreamConnection? {
        didSet { upstreamHandle = upstream.map { Unmanaged.passUnretained($0) } }
    }
    /// `upstream`, for `withUpstream`: read without a retain and a release (`levels` is asked at almost every event).
    private var upstreamHandle: Unmanaged<UpstreamConnection>?
    var lookup: ResolveHandle?
    var connector: Connector?
    /// The kernel-side relay of an established tunnel, when one is running.
    var splice: SpliceTunnel?
    /// Body bytes moving in the kernel, from the client and from the upstream, while they do.
    var requestSplice: SpliceStream?
    var responseSplice: SpliceStream?
    /// The session's one timer (an event without a socket), made with the session and kept for every
    /// connection it serves; stopped when the session stops using its client socket. `wakeupTimer`: when it
    /// is set for and due.
    private var wakeup: OpaquePointer?
    var wakeupTimer = LazyTimer()
    /// A new connection's first bytes are being handled in the call that started it (`start(after:now:reading:)`):
    /// the timer is set only once they have been, and only if something is still due then. A request that came
    /// whole with the handshake has usually cancelled its head deadline by then, and its timer event is never
    /// added to the loop's heap nor deleted from it.
    private var holdingWakeup = false
    /// The tunnel gauge counts this connection, until it closes.
    var tunnelCounted = false
    /// A transparent connection is counted in `ipdirect_transparent_connections_total` at its first exchange.
    var transparentCounted = false
    var isClosed = false
    var connectionSetSlot = -1
    var parsingInput = false
    /// Heads built by the proxy that leave together with the first body bytes behind them.
    var pendingUpstreamHead = HeadBuffer()
    var pendingClientHead = HeadBuffer()
    /// Bytes of the buffered head already known to hold no line feed: the parser only runs once a new line
    /// has arrived, so a client trickling a head byte by byte costs linear, not quadratic, work.
    var headBytesWithoutNewline = 0
    /// Where the actions being performed end in the machine's queue: an event reported while one of them
    /// runs queues its own after them, and they are performed (and dropped) before the rest of the list.
    private var performingUpTo = 0

    /// A connection with the settings it was accepted under, whose machine begins as `opening` says: a new
    /// connection's (`opening(for:peerAddress:worker:)`), or a parked one's whose next bytes came.
    init(worker: Worker, id: UInt64, client: consuming BufferedSocket, peerAddress: SocketAddress?,
         configuration: ConnectionSettings, opening: SessionOpening) {
        workerHandle = Unmanaged.passUnretained(worker)
        clock = worker.base.clock
        self.configuration = configuration
        settingsHandle = Unmanaged.passUnretained(configuration)
        headLimits = configuration.rules.headLimits
        machine = SessionMachine(opening)
        self.id = id
        self.client = client
        self.peerAddress = peerAddress
        wakeup = event_new(worker.base.raw, -1, 0, ClientSession.wakeupFired, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        if let wakeup { event_free(wakeup) }
    }

    /// How a new connection's machine begins, from the settings it was accepted under.
    static func opening(for configuration: ConnectionSettings, peerAddress: SocketAddress?, worker: Worker) -> SessionOpening {
        let permitted = peerAddress.map { configuration.clients.permits($0.ip) } ?? false
        return .accepted(rules: configuration.rules, clientPermitted: permitted,
                         requiresAuthentication: configuration.credentials != nil, draining: worker.isDraining)
    }

    /// This session, whose connection has ended and which nothing else holds (`SpareConnections`), serves
    /// the connection on `client` as a new session made with these arguments would: every stored property
    /// above is set again here. Only its stopped timer event and the room its machine grew are kept (the
    /// machine reopens in place, `SessionMachine.reopen(_:)`).
    func reopen(id: UInt64, client: consuming BufferedSocket, peerAddress: SocketAddress?,
                configuration: ConnectionSettings, opening: borrowing SessionOpening) {
        // Most connections are accepted under the settings the last one had; what a closed connection left
        // set is mostly cleared already. Testing first spares a retain and a release of each.
        if self.configuration !== configuration { self.configuration = configuration }
        machine.reopen(opening)
        self.id = id
        self.client = client
        self.peerAddress = peerAddress
        if peerText != nil { peerText = nil }
        if credentialCheck != nil { credentialCheck = nil }
        if upstream != nil { upstream = nil }
        if lookup != nil { lookup = nil }
        if connector != nil { connector = nil }
        if splice != nil { splice = nil }
        if requestSplice != nil { requestSplice = nil }
        if responseSplice != nil { responseSplice = nil }
        wakeupTimer = LazyTimer()
        holdingWakeup = false
        tunnelCounted = false
        transparentCounted = false
        isClosed = false
        connectionSetSlot = -1
        parsingInput = false
        pendingUpstreamHead = HeadBuffer()
        pendingClientHead = HeadBuffer()
        headBytesWithoutNewline = 0
        performingUpTo = 0
    }

    /// `peerAddress` as text for the logs.
    var peer: String {
        if let peerText { return peerText }
        let text = peerAddress?.description ?? "-"
        peerText = text
        return text
    }

    var clientInput: OpaquePointer { client.input }

    /// What the four buffers hold now, for the machine's decisions.
    var levels: BufferLevels {
        var levels = BufferLevels(clientInput: client.inputLength, clientOutput: client.outputLength)
        withUpstream { upstream in
            levels.upstreamInput = upstream.socket.inputLength
            levels.upstreamOutput = upstream.socket.outputLength
        }
        return levels
    }

    /// A new connection's session starts reading its client, at `now`, and reads what is already there with
    /// `firstRead`; the head deadline (`wait`) runs from the accept, whether the connection waited silent first
    /// or not.
    func start(after wait: FirstBytesWait, now: Int64, reading firstRead: () -> Void) {
        attachClient()
        holdingWakeup = true
        perform(machine.started(after: wait, now: now))
        firstRead()
        holdingWakeup = false
        setHeldWakeup()
    }

    /// The client's socket is known to be readable: read it now, as its read event would on the next turn
    /// of the loop, which would cost one more epoll_wait.
    func readReadyClient() {
        guard !isClosed else { return }
        client.readReady()
    }

    /// Bytes read from the client's socket before the session had it, handled as its first read.
    func receiveFirstBytes(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosed else { return }
        client.deliverRead(bytes)
    }

    /// Takes the client's socket, made with `flow(for:)`, over and reads from it from now on.
    func attachClient() {
        client.handOver(to: self, calling: BufferEventCallbacks.sessionClient)
        // Writing is enabled from creation; enabling it again would arm EPOLLOUT with nothing to write.
        client.resumeReading()
    }

    // MARK: - Timer

    private static let wakeupFired: event_callback_fn = { _, _, context in
        borrowed(context) { session in
            let now = session.clock.nowMicros
            switch session.wakeupTimer.fired(now: now) {
            case .due: session.perform(session.machine.deadlinePassed(session.levels, now: now))
            case .early(let millis): session.setWakeup(afterMillis: millis)
            case .idle: break
            }
        }
    }

    /// Runs `body` on the session whose pointer a libevent callback was given, without retaining it: sessions
    /// are let go of only through the worker's `SpareConnections`, which holds them until the turn ends, and
    /// does not hand one out again while `isInCallback`.
    @inline(__always)
    static func borrowed(_ context: UnsafeMutableRawPointer?, _ body: (ClientSession) -> Void) {
        Unmanaged<ClientSession>.fromOpaque(context!)._withUnsafeGuaranteedRef { session in
            session.callbackDepth += 1
            body(session)
            session.callbackDepth -= 1
        }
    }

    /// Callbacks (`borrowed`) running on this session: one may have ended its connection and kept it as a
    /// spare, and it must not serve another until they return.
    private var callbackDepth = 0
    var isInCallback: Bool { callbackDepth > 0 }

    private func setWakeup(afterMillis millis: Int) {
        guard !isClosed, !holdingWakeup, let wakeup else { return }
        var delay = timeval(millis: millis)
        event_add(wakeup, &delay)
    }

    /// Sets the timer held while the first bytes were handled, for what is due now; forgets it when nothing is.
    private func setHeldWakeup() {
        guard !isClosed, let setFor = wakeupTimer.setForMicros else { return }
        guard wakeupTimer.dueMicros != nil else { return wakeupTimer.eventRemoved() }
        let remaining = setFor - clock.nowMicros
        setWakeup(afterMillis: Int(max(0, (remaining + 999) / 1000)))
    }

    /// The timer stops for good: the session performs nothing more.
    func stopWakeup() {
        // Deleting an event that was never added still costs a pass through libevent.
        if wakeupTimer.setForMicros != nil, let wakeup { event_del(wakeup) }
        wakeupTimer.eventRemoved()
    }

    // MARK: - Callbacks

    func didRead(from side: SessionSide) {
        if let action = machine.bytesArrived(from: side), !isClosed { perform(action) }
    }

    func didDrain(_ side: SessionSide) {
        perform(machine.outputDrained(side, levels))
    }

    func didReceive(from side: SessionSide, events: Int16) {
        let eof = events & Int16(BEV_EVENT_EOF) != 0
        let error = events & Int16(BEV_EVENT_ERROR) != 0
        let timeout = events & Int16(BEV_EVENT_TIMEOUT) != 0
        let reason = error ? Connector.errnoText(errno) : (timeout ? "timed out" : "closed")
        if side == .client {
            perform(machine.clientClosed(clean: eof && !error && !timeout, reason: reason, levels))
        } else {
            let end: UpstreamEnd = timeout ? .timeout : (eof && !error ? .eof : .error)
            perform(machine.upstreamClosed(end, reason: reason, levels, now: clock.nowMicros))
        }
    }

    /// The daemon is stopping; true when this connection was idle and closed at once.
    func drain() -> Bool {
        perform(machine.drainRequested(levels))
        return isClosed
    }

    /// Closes at once (the worker's loop is ending).
    func close() {
        perform(machine.close())
    }

    /// Closes at once because an operator asked (`POST /connections/close`).
    func closeByOperator() {
        perform(machine.closedByOperator())
    }

    // MARK: - Actions

    /// Performs what the event just reported queued: `perform(machine.clientClosed(...))`.
    func perform(_ event: Void) {
        performQueuedActions()
    }

    /// Performs, in order, the actions queued by the latest event, then drops them from the queue (its
    /// capacity stays for the next event). Nothing runs once the session has closed.
    func performQueuedActions() {
        let first = performingUpTo
        let end = machine.actions.count
        performingUpTo = end
        var index = first
        while index < end, !isClosed {
            let action = machine.actions[index]
            index += 1
            perform(action)
        }
        performingUpTo = first
        machine.dropActions(from: first)
    }

    private func perform(_ action: SessionAction) {
        switch action {
        case .sendToClient: machine.payloads.reply.withUnsafeBytes { ByteTransfer.send($0, to: client) }
        case .resolve: resolve(machine.request.hostKey.name)
        case .connect:
            guard let request = machine.payloads.upstream else { return }
            connect(request)
        case .reusePooled: reusePooled(key: machine.request.poolKey)
        case .forwardRequest:
            pendingUpstreamHead = machine.payloads.requestHead
            pumpRequestBody()
        case .pumpRequestBody: pumpRequestBody()
        case .readResponseHead: parseResponseHeads()
        case .forwardResponse:
            pendingClientHead = machine.payloads.responseHead
            pumpResponseBody()
        case .pumpResponseBody: pumpResponseBody()
        case .spliceBody(let side): spliceBody(from: side, limit: machine.payloads.spliceLimit)
        case .readNextRequest, .readSOCKSMessage: parseClientInput()
        case .sniffClientInput: sniffClientInput()
        case .park(let idleMillis): worker.park(self, idleMillis: idleMillis)
        case .pauseReading(let side): onSocket(side) { $0.pauseReading() }
        case .resumeReading(let side): onSocket(side) { $0.resumeReading() }
        case .shutWrite(let side): onSocket(side) { $0.shutWrite() }
        case .flushClient:
            client.drainOnlyWhenEmpty()
            if client.outputLength == 0 { perform(machine.outputDrained(.client, levels)) }
        case .countUnreadClientInput:
            perform(machine.unreadClientInputCounted(Int(ipd_unread_bytes(client.fd)), levels))
        case .discardClientInput: evbuffer_drain(clientInput, ipd_evbuffer_length(clientInput))
        case .startTunnel: startTunnel()
        case .spliceTunnel: spliceTunnel()
        case .relay(let side): relay(from: side)
        case .armResponseTimeout(let millis):
            let now = clock.nowMicros
            withUpstream { $0.armResponseTimeout(millis, now: now) }
        case .armTimer(let millis):
            if let delay = wakeupTimer.arm(millis: millis, now: clock.nowMicros) { setWakeup(afterMillis: delay) }
        case .cancelTimer: wakeupTimer.cancel()
        case .recordFirstByte(let micros):
            guard let address = withUpstream({ $0.address }) else { return }
            withWorker { $0.health.recordFirstByte(address, for: machine.request.hostKey, micros: micros) }
        case .recordHostFailure:
            guard let upstream else { return }
            worker.health.hostFailed(upstream.address, for: machine.request.hostKey, reason: machine.payloads.hostFailure)
        case .releaseUpstream(let reusable): releaseUpstream(reusable: reusable)
        case .abandonUpstream: abandonUpstreamWork()
        case .verifyCredentials:
            guard let credentials = machine.takeCredentials() else { return }
            verifyCredentials(user: credentials.user, password: credentials.password)
        case .consumeClientInput(let count): evbuffer_drain(clientInput, count)
        case .lookUpListenerAddress:
            perform(machine.listenerAddressKnown(SocketAddress(localOf: client.fd), levels, now: clock.nowMicros))
        case .reportError:
            guard let error = machine.payloads.error else { return }
            Logger.warning("session=\(id) client=\(peer) target=\(LogQuote.token(machine.request.hostPort)) status=\(error.status) error=\(error.kind.rawValue) details=\"\(error.details)\"")
        case .reportTransparentMismatch: reportTransparentMismatch()
        case .reportTimeout(let reason):
            Logger.debug("session=\(id) client=\(peer) state=\(machine.phase) event=\(reason)")
        case .logExchange: logExchange()
        case .close: closeConnections()
        }
    }

    /// Runs `body` with the worker borrowed: the objects it owns (its pool, health table, metrics) are then
    /// used without the retain and release of each that a call through `worker` costs, since the compiler
    /// cannot tell that an unchecked reference keeps them alive. The worker outlives its sessions.
    @inline(__always)
    func withWorker<Result>(_ body: (Worker) -> Result) -> Result {
        workerHandle._withUnsafeGuaranteedRef(body)
    }

    /// Runs `body` with the connection's settings borrowed, for the same reason: `configuration` is a variable,
    /// so every read of it is a retain and a release. It changes only while the session serves no connection.
    @inline(__always)
    func withSettings<Result>(_ body: (ConnectionSettings) -> Result) -> Result {
        settingsHandle._withUnsafeGuaranteedRef(body)
    }

    /// Runs `body` on the upstream connection, borrowed, when there is one; nil when there is none. For work that
    /// cannot end the exchange (moving bytes, arming a timer), during which the session keeps holding it.
    @inline(__always)
    func withUpstream<Result>(_ body: (UpstreamConnection) -> Result) -> Result? {
        upstreamHandle?._withUnsafeGuaranteedRef(body)
    }

    /// Runs `body` on the socket of `side`, when that side has one.
    func onSocket(_ side: SessionSide, _ body: (borrowing BufferedSocket) -> Void) {
        if side == .client {
            body(client)
        } else if let upstream {
            body(upstream.socket)
        }
    }

    /// Read and write sizes and the watermarks that drive flow control between the two sides. Reading
    /// never pauses before a whole head of `max_header_bytes` (plus one byte, to see it is too large) fits.
    /// How a session's client socket reads and writes under `configuration`.
    static func flow(for configuration: ConnectionSettings) -> BufferedSocket.Flow {
        BufferedSocket.Flow(readHighWater: readHighWater(maxHeaderBytes: configuration.rules.proxy.maxHeaderBytes),
                            drainAt: SessionRules.outputHighWater / 2, maxSingleIO: maxSingleIO,
                            // A client that stops reading our output for this long is gone.
                            writeTimeoutMillis: configuration.rules.proxy.clientIdleTimeoutMs)
    }

    /// Reading pauses at this input length, which always leaves room for the longest head allowed.
    static func readHighWater(maxHeaderBytes: Int) -> Int { max(inputHighWater, maxHeaderBytes + 1) }

    var readHighWater: Int { ClientSession.readHighWater(maxHeaderBytes: headLimits.maxHeadBytes) }

    /// The same for an upstream connection, once per connection rather than once per request it carries.
    func configureFlow(of connection: UpstreamConnection) {
        connection.setFlow(readHighWater: readHighWater, drainAt: SessionRules.outputHighWater / 2,
                           maxSingleIO: ClientSession.maxSingleIO)
    }

    /// The exchange that just ended, in the metrics and, when it is on, the access log. The figures are read
    /// field by field: handing the request and the record over whole would copy them.
    func logExchange() {
        let figures = ExchangeFigures(
            method: machine.request.methodKind, status: machine.record.status,
            bytesFromClient: machine.record.bytesFromClient, bytesToClient: machine.record.bytesToClient,
            resolveMicros: machine.record.resolveFinished ? machine.record.resolveMicros : nil,
            connectMicros: machine.record.connectFinished ? machine.record.connectMicros : nil,
            firstByteMicros: machine.record.firstByteMicros)
        let logging = withWorker { worker in
            worker.metrics.update { $0.count(figures) }
            return worker.accessLog.isEnabled
        }
        if let transparent = machine.transparent, !transparentCounted { countTransparent(transparent) }
        guard logging else { return }
        let request = machine.request
        let record = machine.record
        worker.accessLog.append(AccessLogRecord(
            unixMillis: MonotonicClock.wallMillis(), client: peer, method: request.method, target: request.hostPort,
            upstream: record.upstreamAddress, source: record.source,
            cacheAgeMillis: record.cacheAgeMillis, status: record.status,
            bytesFromClient: record.bytesFromClient, bytesToClient: record.bytesToClient,
            resolveMicros: record.resolveMicros, connectMicros: record.connectMicros,
            attempts: record.connectAttempts, addressRank: record.addressRank,
            totalMicros: clock.nowMicros - request.startMicros, note: record.note, user: request.user,
            transparent: machine.transparent?.summary))
    }

    /// Cancels a lookup or connect in flight and drops the upstream connection (never pooled: its
    /// exchange did not end cleanly).
    func abandonUpstreamWork() {
        stopBodySplices()
        credentialCheck?.cancel()
        credentialCheck = nil
        lookup?.cancel()
        lookup = nil
        connector?.cancel()
        connector = nil
        upstream?.close()
        upstream = nil
    }

    /// Frees both connections; runs once.
    private func closeConnections() {
        isClosed = true
        stopWakeup()
        splice?.close()
        splice = nil
        abandonUpstreamWork()
        if tunnelCounted {
            tunnelCounted = false
            worker.metrics.update { $0.tunnelsActive -= 1 }
        }
        // The bufferevent may serve the next connection; the socket closes here.
        withWorker { worker in
            Glibc.close(worker.spareSockets.keep(&client))
            worker.sessionEnded(self)
        }
    }
}

import CEvent
import Glibc
import IPDirectCore

/// One event loop on its own thread. It owns everything its connections touch (sessions, upstream
/// pool), so nothing is shared between loops but the listening sockets, the resolver service, the TLS
/// client context (its session cache is locked) and counters.
final class Worker {
    let index: Int
    let base = EventBase()
    /// The time of the loop's turn, for the sessions and everything else this loop runs.
    var clock: TurnClock { base.clock }
    /// Replaced together by a reload (Worker+Reload): sessions already open keep the settings they
    /// took when they were accepted, new ones take the new ones.
    var config: Config
    var connectionSettings: ConnectionSettings
    /// The daemon's listeners and the machine's addresses, which no request may reach; the addresses are
    /// renewed when the network changes (Worker+Reload).
    var ownEndpoints: OwnEndpoints
    let pool: UpstreamPool
    let accessLog: AccessLogWriter
    let resolverService: ResolverService
    /// Logins against `auth_file`, shared by every worker; the crypt thread is its own.
    let credentialService: CredentialService
    /// What every worker learned about upstream addresses, and the thread that probes them.
    let health: UpstreamHealth
    let prober: AddressProber
    /// The pipes this loop's tunnels and bodies borrow while bytes are in flight.
    let pipes: PipePool
    /// Loops the daemon runs: `max_pipes` is shared out among them.
    let workerCount: Int
    /// The field lines of the head being parsed, by whichever session parses one: a head is parsed and
    /// handed on within one callback, so the worker's sessions share one storage, allocated once, rather than
    /// each growing its own (five allocations for a connection's first head, freed again when it closes).
    var headFields: [HeaderField] = []
    /// Emptied bufferevents of ended client connections, for the next ones.
    let spareSockets: SpareSockets
    /// Sessions whose connection ended, for the next ones: about 2.6 KiB each (the object, its machine's action
    /// slots and two 512-byte head stores, its timer event), so at most 83 KiB a loop.
    let spareSessions: SpareConnections<ClientSession>
    static let spareSessionCapacity = 32
    /// Silent clients whose connection became a session or closed, for the next ones: about 250 bytes each.
    let spareSilentClients: SpareConnections<SilentClient>
    static let spareSilentClientCapacity = SpareSockets.defaultCapacity
    let gate: ConnectionGate
    var listeners: [ConnectionAcceptor] = []
    /// The DNS listener's sockets on this loop; nil while `[dns] listen` is empty.
    private(set) var dnsListeners: DNSWorkerListeners?
    var sessions = ConnectionSet<ClientSession>()
    /// Accepted connections that have sent nothing yet, waiting with no session (Worker+SilentClients).
    var silentClients = ConnectionSet<SilentClient>()
    /// Kept-alive connections waiting between requests with no session (Worker+Parking).
    private(set) lazy var parkedClients = ParkedClients(worker: self)
    /// Set once a stop signal arrived: no idle keep-alive, and `drainFinished` runs when the last session ends.
    var isDraining = false
    var drainFinished: (() -> Void)?
    private var nextSessionNumber: UInt64 = 0
    /// This loop's counters and histograms, read by the admin listener.
    let metrics = TrafficMetricsCell()
    /// The DNS listener's answer templates, shared by every worker; nil without a DNS listener.
    let dnsTemplates: DNSAnswerTemplateStore?
    /// What transparent mode's workers share; nil while it is off.
    let transparent: TransparentShared?
    /// Moves on with every reload and change of interface addresses, each worker's the same after each has
    /// taken the change: answer templates made under other settings are not used.
    var settingsGeneration: UInt64 = 0
    /// This loop's share of `/queries`: its DNS listener's queries and its sessions' lookups.
    let queryLog: QueryLogCell
    /// Where other threads (the resolver, the main thread) hand this loop work.
    let mailbox: LoopMailbox
    /// Re-enables the listeners after accept() failed for lack of descriptors or memory.
    var acceptRetry: Timer?
    /// How long accepting pauses after such a failure, instead of spinning on it.
    static let acceptRetryMillis = 500

    init(index: Int, workerCount: Int, config: Config, ownEndpoints: OwnEndpoints, tls: TLSClientContext, sockets: [ListeningSocket],
         dnsSockets: DNSListenerSockets = DNSListenerSockets(), dnsTemplates: DNSAnswerTemplateStore? = nil,
         transparentSockets: [ListeningSocket] = [], transparent: TransparentShared? = nil,
         accessLogFD: Int32?, gate: ConnectionGate, resolverService: ResolverService, credentialService: CredentialService,
         prober: AddressProber) throws(StartupError) {
        self.index = index
        self.workerCount = workerCount
        queryLog = QueryLogCell(capacity: config.dns.queryLogEntries)
        self.dnsTemplates = dnsTemplates
        self.transparent = transparent
        pipes = PipePool(limit: config.proxy.pipesPerWorker(workerCount: workerCount), metrics: metrics)
        self.prober = prober
        spareSockets = SpareSockets(base: base)
        spareSessions = SpareConnections(base: base, capacity: Worker.spareSessionCapacity)
        spareSilentClients = SpareConnections(base: base, capacity: Worker.spareSilentClientCapacity)
        health = prober.health
        self.config = config
        self.ownEndpoints = ownEndpoints
        self.gate = gate
        self.resolverService = resolverService
        self.credentialService = credentialService
        pool = UpstreamPool(base: base, maxIdlePerKey: config.proxy.upstreamMaxIdlePerHost,
                            idleTimeoutMillis: config.proxy.upstreamIdleTimeoutMs)
        accessLog = AccessLogWriter(base: base, fd: accessLogFD)
        let mailbox = try LoopMailbox(base: base)
        self.mailbox = mailbox
        connectionSettings = Worker.connectionSettings(config, ownEndpoints, tls: tls, resolverService: resolverService,
                                                       credentialService: credentialService, mailbox: mailbox)
        for socket in sockets {
            // Unchecked, as a session's worker: the listeners are the worker's and go with it.
            try watch(socket, kind: "listener") { [unowned(unsafe) self] fd, address in accept(fd: fd, address: address) }
        }
        for socket in transparentSockets {
            try watch(socket, kind: "transparent listener") { [unowned(unsafe) self] fd, address in
                acceptRedirected(fd: fd, address: address)
            }
        }
        if !dnsSockets.datagram.isEmpty || !dnsSockets.stream.isEmpty {
            dnsListeners = try DNSWorkerListeners(worker: self, sockets: dnsSockets)
        }
    }

    /// What the connections accepted from now on take; sessions check logins with nothing when
    /// `auth_file` is not set.
    static func connectionSettings(_ config: Config, _ ownEndpoints: OwnEndpoints, tls: TLSClientContext,
                                   resolverService: ResolverService, credentialService: CredentialService,
                                   mailbox: LoopMailbox) -> ConnectionSettings {
        ConnectionSettings(
            config: config, ownEndpoints: ownEndpoints, tls: tls,
            resolver: ResolverChain(settings: config.resolver, hosts: config.hosts, service: resolverService, mailbox: mailbox),
            credentials: config.access.authFile == nil ? nil : CredentialVerifier(service: credentialService, mailbox: mailbox))
    }

    /// Runs the loop until `requestStop`; called on the worker's own thread.
    func run() {
        base.dispatch()
        dnsListeners?.close()
        for session in sessions.all { session.close() }
        closeSilentClients()
        parkedClients.closeAll()
        pool.closeAll()
        pipes.closeIdle()
        accessLog.flush()
    }

    /// Thread-safe: the loop exits once it runs this.
    func requestStop() {
        mailbox.post { [base] in base.loopBreak() }
    }

    /// EMFILE/ENFILE/ENOMEM leave the connection queued, so the listener would fire again at once:
    /// pause all listeners of this loop briefly.
    private func watch(_ socket: ListeningSocket, kind: String,
                       accepted: @escaping (Int32, UnsafeMutablePointer<sockaddr>) -> Void) throws(StartupError) {
        guard let listener = ConnectionAcceptor(base: base, listenFD: socket.fd, accepted: accepted,
                                                failed: { [unowned self] in acceptDidFail() }) else {
            throw StartupError("cannot watch \(kind) \(socket.address)")
        }
        listeners.append(listener)
    }

    private func acceptDidFail() {
        let reason = String(cString: strerror(errno))
        Logger.error("worker=\(index) event=accept_failed reason=\"\(reason)\" pause_ms=\(Worker.acceptRetryMillis)")
        for listener in listeners { listener.disable() }
        let retry = acceptRetry ?? Timer(base: base)
        retry.action = { [unowned self] in
            for listener in listeners { listener.enable() }
        }
        acceptRetry = retry
        retry.schedule(afterMillis: Worker.acceptRetryMillis)
    }

    /// A new connection's number, unique in the daemon.
    func nextSessionID() -> UInt64 {
        nextSessionNumber += 1
        return UInt64(index) << 48 | nextSessionNumber
    }

    private func accept(fd: Int32, address: UnsafeMutablePointer<sockaddr>?) {
        let peerAddress = address.flatMap { SocketAddress(sockaddr: $0) }
        guard gate.tryEnter() else {
            let peer = peerAddress?.description ?? "-"
            let refusal = ProxyError(status: 503, kind: .connectionLimitReached,
                                     details: "connection limit reached (proxy.max_connections = \(gate.limit))")
            Logger.warning("worker=\(index) client=\(peer) event=connection_refused reason=max_connections")
            let bytes = refusal.response(proxyName: config.proxy.viaName, persistence: .close)
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            Glibc.close(fd)
            return
        }
        metrics.update { $0.connectionsAccepted += 1; $0.connectionsActive += 1 }
        startOrAwaitFirstBytes(fd: fd, id: nextSessionID(), peerAddress: peerAddress)
    }

    func sessionEnded(_ session: ClientSession) {
        guard let ended = sessions.take(session) else { return }
        spareSessions.keep(ended)
        connectionEnded()
    }

    /// One client connection fewer, whether it ended as a session, parked or silent; while draining, perhaps the last.
    func connectionEnded() {
        metrics.update { $0.connectionsActive -= 1 }
        gate.leave()
        if isDraining { reportIfDrained() }
    }
}

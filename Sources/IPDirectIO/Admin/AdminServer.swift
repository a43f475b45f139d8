import CEvent
import Glibc
import IPDirectCore

/// The admin listener (`[admin] listen`): `/healthz`, `/metrics`, `/cache`, `/cache/flush`, `/upstreams`,
/// `/queries` and `/resolve`, on an event loop and thread of its own, so a slow scrape or a `/resolve` waiting for a
/// provider never holds up a worker. It reads the workers' metrics cells and the resolver's state, each
/// under its own lock, and resolves through the same cache and sources as the proxy.
///
/// Local clients cannot shut the listener: a head must arrive whole within `[admin] header_timeout`, and
/// one client address holds at most `[admin] max_connections_per_client` of its `AdminSettings.maxConnections`.
///
/// Everything but `init`, `start`, `apply` and `stop` runs on the admin loop's thread.
final class AdminServer {
    /// Taken at startup; a reload does not change them.
    let settings: AdminSettings
    /// Replaced on the admin thread by `apply`, so `/resolve` follows reloads as the proxy does.
    private(set) var resolver: ResolverChain
    private let loop: ServiceLoop<Void>
    private let sockets: [ListeningSocket]
    /// The addresses the listening sockets are bound to, with the port the kernel chose for port 0: the
    /// names a request's Host may use, besides loopback names and the address a connection arrived on.
    private let boundAddresses: [SocketAddress]
    private let registry: MetricsRegistry
    private let service: ResolverService
    private let health: UpstreamHealth?
    /// Every worker's query log, merged for `/queries`.
    private let queryLogs: [QueryLogCell]
    /// Asked on their own loops for `/connections` and `/connections/close`.
    private let workers: [Worker]
    private var listeners: [OpaquePointer] = []
    private var connections: [ObjectIdentifier: AdminConnection] = [:]
    private var limits: AdminConnectionLimits
    private var closureLog = AdminClosureLog()

    init(sockets: [ListeningSocket], config: Config, registry: MetricsRegistry,
         resolverService: ResolverService, health: UpstreamHealth? = nil, queryLogs: [QueryLogCell] = [],
         workers: [Worker] = []) throws(StartupError) {
        self.sockets = sockets
        self.queryLogs = queryLogs
        self.workers = workers
        settings = config.admin
        limits = AdminConnectionLimits(perClient: config.admin.maxConnectionsPerClient, total: AdminSettings.maxConnections)
        boundAddresses = sockets.map(\.boundAddress)
        self.health = health
        self.registry = registry
        service = resolverService
        loop = try ServiceLoop(named: "admin") { _, _ in }
        resolver = ResolverChain(settings: config.resolver, hosts: config.hosts, service: resolverService, mailbox: loop.mailbox)
        let context = Unmanaged.passUnretained(self).toOpaque()
        for socket in sockets {
            // backlog 0: the socket is already listening.
            guard let listener = evconnlistener_new(loop.base.raw, AdminServer.accepted, context,
                                                    UInt32(LEV_OPT_CLOSE_ON_EXEC), 0, socket.fd) else {
                throw StartupError("cannot watch admin listener \(socket.address)")
            }
            listeners.append(listener)
        }
    }

    deinit {
        for listener in listeners { evconnlistener_free(listener) }
    }

    /// Thread-safe: a reload's `[hosts]` and `[resolver] order` for `/resolve`, taken on the admin thread.
    func apply(_ config: Config) {
        loop.post { [self] in
            resolver = ResolverChain(settings: config.resolver, hosts: config.hosts, service: service, mailbox: loop.mailbox)
        }
    }

    /// Starts the admin thread; nothing to do when no address is configured.
    func start() {
        guard !sockets.isEmpty else { return }
        loop.start()
        Logger.info("event=admin_listening listen=\(boundAddresses.map(\.description).joined(separator: ","))")
    }

    /// Stops the admin thread and waits for it; its open connections are closed, and no more are taken.
    func stop() {
        loop.stop { [self] in
            for listener in listeners { evconnlistener_disable(listener) }
            for connection in Array(connections.values) { connection.close() }
        }
    }

    /// Where connections make their timers.
    var base: EventBase { loop.base }

    private static let accepted: evconnlistener_cb = { _, fd, address, _, context in
        Unmanaged<AdminServer>.fromOpaque(context!).takeUnretainedValue().accept(fd: fd, address: address)
    }

    private func accept(fd: Int32, address: UnsafeMutablePointer<sockaddr>?) {
        let peerAddress = address.flatMap { SocketAddress(sockaddr: $0) }
        let peer = peerAddress?.description ?? "-"
        if let refused = limits.admit(peerAddress?.ip) {
            log(closing: peer, refused, details: "limit=\(limits.limit(for: refused))")
            AdminConnection.sendWithoutWaiting(limits.refusal(refused), to: fd)
            Glibc.close(fd)
            return
        }
        // A wildcard listener is named by the address the connection arrived on.
        guard let local = SocketAddress(localOf: fd),
              let socket = BufferedSocket(socket: fd, base: base) else {
            Glibc.close(fd)
            limits.release(peerAddress?.ip)
            return
        }
        let authority = AdminAuthority(listening: boundAddresses, arrivedOn: local)
        let connection = AdminConnection(server: self, socket: socket, peer: peer, client: peerAddress?.ip, authority: authority)
        connections[ObjectIdentifier(connection)] = connection
        connection.start()
    }

    func connectionEnded(_ connection: AdminConnection) {
        if connections.removeValue(forKey: ObjectIdentifier(connection)) != nil {
            limits.release(connection.client)
        }
    }

    /// One line per connection closed unserved, at warning only as often as `AdminClosureLog` allows, so a
    /// flood of refused connections cannot flood the log.
    func log(closing peer: String, _ reason: AdminClosure, details: String) {
        let line = "event=admin_connection_closed client=\(peer) reason=\(reason) \(details)"
        switch closureLog.note(reason, now: MonotonicClock.nowMicros()) {
        case .debug:
            Logger.debug(line)
        case .warning(let suppressed):
            Logger.warning(suppressed > 0 ? "\(line) suppressed=\(suppressed)" : line)
        }
    }

    /// How long the workers have to answer `/connections`: each lists its sessions in about a millisecond.
    static let workerAnswerMillis = 2_000

    /// The answer to a route the workers answer, each on its own loop, given to `completion` on the admin loop;
    /// nil for other routes.
    func askWorkers(_ route: AdminRoute, completion: @escaping (AdminResponse) -> Void) -> PendingAdminAnswer? {
        let unanswered = AdminResponse.text(503, "a worker did not answer within \(AdminServer.workerAnswerMillis) ms")
        switch route {
        case .connections(let limit):
            let limit = min(limit ?? ConnectionListing.defaultLimit, ConnectionListing.maximumLimit)
            return WorkerPoll(workers: workers, adminMailbox: loop.mailbox, adminBase: loop.base,
                              timeoutMillis: AdminServer.workerAnswerMillis,
                              ask: { $0.connectionListing(limit: limit) }) { listings in
                guard let listings else { return completion(unanswered) }
                let merged = ConnectionListing.merged(listings, limit: limit)
                completion(.json(200, bytes: AdminJSON.connectionBytes(merged, now: MonotonicClock.nowMicros())))
            }
        case .closeConnection(let id):
            let index = Worker.index(ofSession: id)
            let gone = AdminResponse.text(404, "no connection with id \(id): it has ended, or it is parked between requests")
            guard workers.indices.contains(index) else {
                completion(gone)
                return nil
            }
            return WorkerPoll(workers: [workers[index]], adminMailbox: loop.mailbox, adminBase: loop.base,
                              timeoutMillis: AdminServer.workerAnswerMillis,
                              ask: { $0.closeConnection(id: id) }) { answers in
                guard let answers else { return completion(unanswered) }
                completion(answers.first == true ? .json(200, AdminJSON.connectionClosed) : gone)
            }
        default:
            return nil
        }
    }

    /// The answer for the routes served from what is in memory now; nil for `/resolve`, which may wait.
    func response(to route: AdminRoute) -> AdminResponse? {
        switch route {
        case .metrics:
            return AdminResponse(status: 200, contentType: PrometheusText.contentType,
                                 body: registry.snapshot().prometheusText)
        case .cacheDump:
            let now = ResolverService.nowMillis()
            let rows = service.state.withLock { $0.cache.snapshot(now: now) }
            return .json(200, AdminJSON.cacheDump(rows))
        case .upstreams:
            return .json(200, health?.upstreamsJSON() ?? "{\"hosts\":[]}\n")
        case .queries(let limit):
            // Each worker keeps `capacity` entries; the page shows the newest `capacity` of them all.
            let capacity = queryLogs.first?.capacity ?? 0
            let entries = QueryLogRing.merged(queryLogs.map(\.newestFirst), limit: min(limit ?? capacity, capacity))
            let hijacked = service.state.withLock { $0.hijackedNames }
            return .json(200, AdminJSON.queries(entries, capacity: capacity, hijackedNames: hijacked))
        case .cacheFlush(let name):
            let flushed = service.state.withLock { state in
                let before = state.cache.count
                if let name { state.cache.remove(name) } else { state.cache.removeAll() }
                service.state.publishAnswerChanges(of: state.cache)
                return before - state.cache.count
            }
            Logger.info("event=cache_flushed name=\(name ?? "*") entries=\(flushed)")
            return .json(200, AdminJSON.flushed(flushed))
        case .health, .resolve, .notFound, .methodNotAllowed, .badRequest, .connections, .closeConnection,
             .dashboard, .dashboardAsset, .dashboardError:
            return nil
        }
    }
}

import CEvent
import IPDirectCore

/// Lookups, pooled connections and connection races for the session's current exchange.
extension ClientSession {
    /// A cached name is answered on the spot, without a completion made for it.
    func resolve(_ name: HashedHostName) {
        let started = clock.nowMicros
        let host = name.text
        if let answer = withSettings({ $0.resolver.answerAtOnce(name) }) {
            return resolved(answer, host: host, startedMicros: started)
        }
        let handle = configuration.resolver.query(host) { [unowned self] result in
            self.lookup = nil
            resolved(result, host: host, startedMicros: started)
        }
        // A lookup answered synchronously may already have led to a new lookup; keep that one.
        if !handle.isFinished { self.lookup = handle }
    }

    private func resolved(_ result: Result<Resolution, ResolveFailure>, host: String, startedMicros: Int64) {
        let now = clock.nowMicros
        withWorker { $0.queryLog.recordProxyLookup(result, host: host, client: peerAddress, startedMicros: startedMicros, now: now) }
        perform(machine.resolved(result, levels, now: now))
    }

    /// Ranks the addresses with what every worker learned of them (new answers of `[[upstream.probe]]`
    /// hosts are probed where the resolver stores them, not per request), then reuses a pooled
    /// connection to the best usable one or races new connections.
    func connect(_ request: UpstreamRequest) {
        let mode = withSettings { $0.rules.balanceMode(for: request.host) }
        let now = clock.nowMicros
        let plan = withWorker { worker in
            request.addresses.count == 1
                ? worker.health.plan(for: request.hostKey, only: SocketAddress(ip: request.addresses[0], port: request.port),
                                     mode: mode, now: now)
                : worker.health.plan(for: request.hostKey, candidates: request.addresses.map { SocketAddress(ip: $0, port: request.port) },
                                     mode: mode, now: now)
        }
        if request.mayReusePooled, let pooled = withWorker({ $0.pool.checkout(key: request.poolKey, plan: plan) }) {
            return attach(pooled, .pooled(rank: plan.rank(of: pooled.address)))
        }
        // We connect by IP, so SNI and certificate verification must use the name the client asked for.
        let tls = request.scheme == .https ? (context: configuration.tls, host: request.host) : nil
        let connector = Connector(base: worker.base, key: request.poolKey, hostPort: request.hostPort,
                                  addresses: plan.order, timeoutMillis: configuration.rules.proxy.connectTimeoutMs,
                                  attemptDelayMillis: configuration.rules.upstream.connectionAttemptDelayMs, health: worker.health,
                                  hostKey: request.hostKey, tls: tls) { [unowned self] result in
            let attempts = self.connector?.attemptsStarted ?? 0
            let rank = self.connector?.winnerRank
            self.connector = nil
            let now = clock.nowMicros
            switch result {
            case .failure(let failure):
                let error = failure.proxyError
                worker.metrics.update { $0.countUpstreamFailure(error.kind) }
                perform(machine.connectFailed(error, attempts: attempts, levels, now: now))
            case .success(let connection):
                worker.health.recordUsed(connection.address, for: request.hostKey)
                attach(connection, .connected(attempts: attempts, rank: rank))
            }
        }
        self.connector = connector
        connector.start()
    }

    /// The lookup failed: a live pooled connection to an address that is not quarantined may still
    /// carry the request.
    func reusePooled(key: UpstreamPoolKey) {
        guard let pooled = worker.pool.checkout(key: key, where: { !worker.health.isQuarantined($0) }) else {
            return perform(machine.noPooledConnection(levels, now: clock.nowMicros))
        }
        attach(pooled, .pooled(rank: nil))
    }

    /// Takes ownership of an upstream connection and hands it to the machine.
    private func attach(_ connection: UpstreamConnection, _ arrival: UpstreamArrival) {
        let link = UpstreamLink(reused: connection.reused, isTLS: connection.isTLS)
        guard machine.upstreamReady(link, address: connection.addressText, arrival, now: clock.nowMicros) else {
            return connection.close()
        }
        upstream = connection
        connection.socket.handOver(to: self, calling: BufferEventCallbacks.sessionUpstream)
        configureFlow(of: connection)
        connection.socket.resumeReading()
        performQueuedActions()
        // The last exchange's read timeout gives way to this one's response timeout once the request is on its
        // way, mostly in the actions just performed; nothing runs in between. A request whose body still
        // streams has none.
        if upstream === connection && connection.hasStaleReadTimeout { connection.setReadTimeout(nil) }
    }

    /// The exchange is over: return a clean connection to the pool, close any other.
    func releaseUpstream(reusable: Bool) {
        // Taken rather than read and then cleared: the session's reference goes to the pool.
        guard let upstream = upstream.take() else { return }
        stopBodySplices()
        upstream.socket.dropCallbacks()
        if reusable { withWorker { $0.pool.checkin(upstream) } } else { upstream.close() }
    }
}

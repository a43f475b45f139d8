import IPDirectCore

/// The address prober's loop side: runs the TCP probes `AddressProber` asks for, starts the probes the
/// health table says are due on every tick, expires the table's unused entries, and watches for network
/// changes. Touched on the prober thread only.
final class ProbeRunner {
    /// How often due probes are started.
    static let tickMillis = 200
    /// Expiry of unused entries runs every this many ticks.
    static let ticksPerExpiry = 50

    private let base: EventBase
    private let health: UpstreamHealth
    /// Replaced by a reload, for later probes.
    var connectTimeoutMillis: Int
    private var probes: [ObjectIdentifier: Connector] = [:]
    private let tick: Timer
    private var ticksSinceExpiry = 0
    private var networkMonitor: NetworkChangeMonitor?

    init(base: EventBase, health: UpstreamHealth, connectTimeoutMillis: Int) {
        self.base = base
        self.health = health
        self.connectTimeoutMillis = connectTimeoutMillis
        tick = Timer(base: base)
        tick.action = { [unowned self] in ticked() }
    }

    /// `networkChanged` runs on the prober thread after a network change was seen.
    func start(networkChanged: @escaping (String) -> Void) {
        networkMonitor = NetworkChangeMonitor(base: base, changed: networkChanged)
        tick.schedule(afterMillis: ProbeRunner.tickMillis)
    }

    func stop() {
        tick.cancel()
        for probe in probes.values { probe.cancel() }
        probes.removeAll()
        networkMonitor = nil
    }

    private func ticked() {
        let now = MonotonicClock.nowMicros()
        ticksSinceExpiry += 1
        let expire = ticksSinceExpiry >= ProbeRunner.ticksPerExpiry
        if expire { ticksSinceExpiry = 0 }
        let due = health.learnIfChanged { state in
            let known = state.table.addresses.count
            if expire { state.table.expire(now: now) }
            let due = state.table.takeDueProbes(now: now)
            return (due, changed: !due.isEmpty || state.table.addresses.count != known)
        }
        for address in due { probe(address, ranking: false) }
        tick.schedule(afterMillis: ProbeRunner.tickMillis)
    }

    func probe(_ address: SocketAddress, ranking: Bool) {
        let started = MonotonicClock.nowMicros()
        var identifier: ObjectIdentifier?
        let connector = Connector(base: base, hostPort: address.description, addresses: [address],
                                  timeoutMillis: connectTimeoutMillis) { [unowned self] result in
            if let identifier { probes[identifier] = nil }
            finished(address, result: result, micros: MonotonicClock.nowMicros() - started, ranking: ranking)
        }
        identifier = ObjectIdentifier(connector)
        probes[ObjectIdentifier(connector)] = connector
        connector.start()
    }

    private func finished(_ address: SocketAddress, result: Result<UpstreamConnection, ConnectFailure>, micros: Int64, ranking: Bool) {
        let now = MonotonicClock.nowMicros()
        switch result {
        case .success(let connection):
            connection.close()
            let recovered = health.learn { state in
                state.counters.probesUp += 1
                return state.table.probeSucceeded(address, micros: micros, now: now)
            }
            if recovered { Logger.info("event=address_recovered address=\(address) by=probe connect_ms=\(micros / 1000)") }
        case .failure(let error):
            let quarantinedFor = health.learn { state in
                state.counters.probesDown += 1
                return state.table.probeFailed(address, reason: error.description, now: now)
            }
            let kind = ranking ? "ranking_probe" : "probe"
            Logger.info("event=address_probe_failed address=\(address) probe=\(kind) quarantine_ms=\((quarantinedFor ?? 0) / 1000) reason=\"\(error.description)\"")
        }
    }
}

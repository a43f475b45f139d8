import CEvent
import Glibc
import IPDirectCore
import Synchronization

/// The background side of address health, on a thread and event loop of its own: TCP probes that
/// bring quarantined addresses back once they answer, probes that rank a new answer's addresses
/// before they carry traffic (`[[upstream.probe]]`), the table's expiry, and the network-change
/// watch. Client traffic never waits for any of it.
///
/// `@unchecked Sendable`: everything but `health` and `mailbox` is touched only on the prober thread.
final class AddressProber: @unchecked Sendable {
    let health: UpstreamHealth
    let mailbox: LoopMailbox
    /// `[[upstream.probe]]` and whether non-public addresses may be connected to; replaced by a reload.
    private let rules: Mutex<(probes: [ProbeRule], allowPrivate: Bool)>
    /// Probes of addresses the DNS listener handed out (`[dns] probe_answers`), shared by every worker.
    private let answerProbes = Mutex(ProbeBudget(perSecond: DNSSettings.answerProbesPerSecond,
                                                 burst: DNSSettings.answerProbeBurst))
    private let base = EventBase()
    private var connectTimeoutMillis: Int
    private var probes: [ObjectIdentifier: Connector] = [:]
    private let tick: Timer
    private var thread: pthread_t?
    private var ticksSinceExpiry = 0
    /// Runs on the prober thread after a network change was seen (set before `start`).
    var networkChanged: ((String) -> Void)?
    private var networkMonitor: NetworkChangeMonitor?

    /// How often due probes are started.
    static let tickMillis = 200
    /// Expiry of unused entries runs every this many ticks.
    static let ticksPerExpiry = 50

    init(health: UpstreamHealth, config: Config) throws(StartupError) {
        self.health = health
        rules = Mutex((config.upstream.probeRules, config.access.allowPrivateUpstreams))
        connectTimeoutMillis = config.proxy.connectTimeoutMs
        mailbox = try LoopMailbox(base: base)
        tick = Timer(base: base)
        tick.action = { [unowned self] in ticked() }
    }

    func start() {
        networkMonitor = NetworkChangeMonitor(base: base) { [unowned self] reason in networkChanged?(reason) }
        tick.schedule(afterMillis: AddressProber.tickMillis)
        thread = LoopThread.start { [self] in base.dispatch() }
    }

    func stop() {
        guard let thread else { return }
        mailbox.post { [self] in
            tick.cancel()
            for probe in probes.values { probe.cancel() }
            probes.removeAll()
            networkMonitor = nil
            base.loopBreak()
        }
        pthread_join(thread, nil)
        self.thread = nil
    }

    /// Thread-safe: a reload's probe rules and connect timeout for later probes.
    func apply(_ config: Config) {
        rules.withLock { $0 = (config.upstream.probeRules, config.access.allowPrivateUpstreams) }
        let timeout = config.proxy.connectTimeoutMs
        mailbox.post { [self] in connectTimeoutMillis = timeout }
    }

    /// Thread-safe: the resolver stored a new answer for `name`; when a `[[upstream.probe]]` names it,
    /// its addresses are probed now, before a request uses them. Non-public addresses are probed only
    /// where the proxy would connect to them (`allow_private_upstreams`).
    func answerArrived(for name: String, addresses: [IPAddress]) {
        let (probes, allowPrivate) = rules.withLock { $0 }
        var upstream = UpstreamSettings()
        upstream.probeRules = probes
        guard let port = upstream.probePort(for: name) else { return }
        let permitted = allowPrivate ? addresses : addresses.filter { !$0.isNonPublic }
        rank(permitted.map { SocketAddress(ip: $0, port: port) })
    }

    /// Thread-safe: the DNS listener handed out `addresses` for a name no `[[upstream.probe]]` names
    /// (`[dns] probe_answers`): those nothing is known about are probed at `port` while the budget allows.
    func answerHandedOut(_ addresses: [IPAddress], port: UInt16) {
        let allowPrivate = rules.withLock { $0.allowPrivate }
        let permitted = (allowPrivate ? addresses : addresses.filter { !$0.isNonPublic }).map { SocketAddress(ip: $0, port: port) }
        let now = MonotonicClock.nowMicros()
        let taken = health.learn { state -> [SocketAddress] in
            let unknown = permitted.filter { address in
                state.table.health(of: address).map { !$0.isTried && !$0.probing } ?? true
            }
            guard !unknown.isEmpty, answerProbes.withLock({ $0.take(unknown.count, now: now) }) else { return [] }
            return state.table.takeUnknown(unknown, now: now)
        }
        guard !taken.isEmpty else { return }
        mailbox.post { [self] in
            for address in taken { probe(address, ranking: true) }
        }
    }

    /// Thread-safe: probe the addresses of a new answer that nothing is known about yet.
    func rank(_ candidates: [SocketAddress]) {
        let taken = health.learn { $0.table.takeUnknown(candidates, now: MonotonicClock.nowMicros()) }
        guard !taken.isEmpty else { return }
        mailbox.post { [self] in
            for address in taken { probe(address, ranking: true) }
        }
    }

    private func ticked() {
        let now = MonotonicClock.nowMicros()
        ticksSinceExpiry += 1
        let expire = ticksSinceExpiry >= AddressProber.ticksPerExpiry
        if expire { ticksSinceExpiry = 0 }
        let due = health.learnIfChanged { state in
            let known = state.table.addresses.count
            if expire { state.table.expire(now: now) }
            let due = state.table.takeDueProbes(now: now)
            return (due, changed: !due.isEmpty || state.table.addresses.count != known)
        }
        for address in due { probe(address, ranking: false) }
        tick.schedule(afterMillis: AddressProber.tickMillis)
    }

    private func probe(_ address: SocketAddress, ranking: Bool) {
        let started = MonotonicClock.nowMicros()
        var identifier: ObjectIdentifier?
        let connector = Connector(base: base, key: "", hostPort: address.description, addresses: [address],
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

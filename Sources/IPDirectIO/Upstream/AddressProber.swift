import IPDirectCore
import Synchronization

/// The background side of address health, on a thread and event loop of its own: TCP probes that
/// bring quarantined addresses back once they answer, probes that rank a new answer's addresses
/// before they carry traffic (`[[upstream.probe]]`), the table's expiry, and the network-change
/// watch. Client traffic never waits for any of it. What runs on that loop is `ProbeRunner`'s.
final class AddressProber: Sendable {
    let health: UpstreamHealth
    /// `[[upstream.probe]]` and whether non-public addresses may be connected to; replaced by a reload.
    private let rules: Mutex<(probes: [ProbeRule], allowPrivate: Bool)>
    /// Probes of addresses the DNS listener handed out (`[dns] probe_answers`), shared by every worker.
    private let answerProbes = Mutex(ProbeBudget(perSecond: DNSSettings.answerProbesPerSecond,
                                                 burst: DNSSettings.answerProbeBurst))
    private let loop: ServiceLoop<ProbeRunner>

    init(health: UpstreamHealth, config: Config) throws(StartupError) {
        self.health = health
        rules = Mutex((config.upstream.probeRules, config.access.allowPrivateUpstreams))
        loop = try ServiceLoop(named: "prober") { base, _ in
            ProbeRunner(base: base, health: health, connectTimeoutMillis: config.proxy.connectTimeoutMs)
        }
    }

    /// `networkChanged` runs on the prober thread after a network change was seen.
    func start(networkChanged: @escaping (String) -> Void) {
        loop.start { runner in runner.start(networkChanged: networkChanged) }
    }

    func stop() {
        loop.stop { runner in runner.stop() }
    }

    /// Thread-safe: a reload's probe rules and connect timeout for later probes.
    func apply(_ config: Config) {
        rules.withLock { $0 = (config.upstream.probeRules, config.access.allowPrivateUpstreams) }
        let timeout = config.proxy.connectTimeoutMs
        loop.post { runner in runner.connectTimeoutMillis = timeout }
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
        loop.post { runner in
            for address in taken { runner.probe(address, ranking: true) }
        }
    }

    /// Thread-safe: probe the addresses of a new answer that nothing is known about yet.
    func rank(_ candidates: [SocketAddress]) {
        let taken = health.learn { $0.table.takeUnknown(candidates, now: MonotonicClock.nowMicros()) }
        guard !taken.isEmpty else { return }
        loop.post { runner in
            for address in taken { runner.probe(address, ranking: true) }
        }
    }
}

import IPDirectCore
import Synchronization

/// The address table and selection counters every worker shares, behind one lock. Each call takes
/// the lock once, for microseconds; times are read from the monotonic clock here.
final class UpstreamHealth: Sendable {
    struct State {
        var table: AddressHealthTable
        var counters = UpstreamSelectionCounters()
    }

    private let state: Mutex<State>
    /// Counts changes to what is known of addresses (times, failures, quarantines, probes); plans and
    /// their turns do not count. Read without the lock by the DNS listener's answer templates.
    private let learned = Atomic<UInt64>(0)

    init(settings: AddressHealthSettings) {
        state = Mutex(State(table: AddressHealthTable(settings: settings)))
    }

    var changes: UInt64 { learned.load(ordering: .acquiring) }

    /// Changes what is known of addresses, under the lock, and counts it in `changes`.
    func learn<Result>(_ body: (inout State) -> Result) -> Result {
        learnIfChanged { state in (body(&state), changed: true) }
    }

    /// As `learn`, counted only when `body` says it changed anything: the prober's regular ticks mostly do not.
    func learnIfChanged<Result>(_ body: (inout State) -> (Result, changed: Bool)) -> Result {
        state.withLock { state in
            let (result, changed) = body(&state)
            if changed { learned.add(1, ordering: .releasing) }
            return result
        }
    }

    /// A reload's new quarantine and attempt-delay settings; what was learned stays.
    func apply(_ settings: AddressHealthSettings) {
        learn { $0.table.settings = settings }
    }

    func plan(for host: UpstreamHostKey, candidates: [SocketAddress], mode: BalanceMode, now: Int64) -> AddressPlan {
        return state.withLock { $0.table.plan(for: host, candidates: candidates, mode: mode, now: now) }
    }

    /// `plan(for:candidates:mode:now:)` for a host with one address, which needs no list made of it.
    func plan(for host: UpstreamHostKey, only: SocketAddress, mode: BalanceMode, now: Int64) -> AddressPlan {
        return state.withLock { $0.table.plan(for: host, only: only, mode: mode, now: now) }
    }

    /// The order a DNS answer hands `candidates` out in, under one lock: the plan's, quarantined addresses
    /// left out unless all are. Nil, and nothing recorded, when the order would be the one given: the
    /// default mode and nothing known about any candidate. A DNS listener answers many names nobody
    /// connects to through ipdirect, and making plans for them would fill the table with hosts that only
    /// push out the ones that carry traffic.
    func answerOrder(for host: UpstreamHostKey, candidates: [SocketAddress], mode: BalanceMode) -> [SocketAddress]? {
        let now = MonotonicClock.nowMicros()
        return state.withLock { state in
            if mode == .fastest, candidates.allSatisfy({ state.table.health(of: $0) == nil }) { return nil }
            let order = state.table.plan(for: host, candidates: candidates, mode: mode, now: now).order
            let healthy = order.filter { state.table.health(of: $0)?.quarantinedUntilMicros == nil }
            return healthy.isEmpty ? order : healthy
        }
    }

    /// TCP stood after `micros`. `usable`: nothing more is needed (no TLS), so it counts as a success.
    func connected(_ address: SocketAddress, micros: Int64, usable: Bool) {
        let now = MonotonicClock.nowMicros()
        let recovered = learn { state in
            state.counters.attempts[.connected, default: 0] += 1
            state.table.recordConnectTime(address, micros: micros, now: now)
            return usable && state.table.recordSuccess(address, now: now)
        }
        if recovered { Logger.info("event=address_recovered address=\(address) by=connection") }
    }

    /// The TLS handshake on a connection to `address` succeeded.
    func handshakeSucceeded(_ address: SocketAddress) {
        let now = MonotonicClock.nowMicros()
        let recovered = learn { $0.table.recordSuccess(address, now: now) }
        if recovered { Logger.info("event=address_recovered address=\(address) by=connection") }
    }

    /// An attempt failed on the path to `address`. Logs a quarantine.
    func failed(_ address: SocketAddress, outcome: UpstreamAttemptOutcome, reason: String, elapsedMicros: Int64) {
        let now = MonotonicClock.nowMicros()
        let quarantinedFor = learn { state in
            state.counters.attempts[outcome, default: 0] += 1
            return state.table.recordFailure(address, outcome: outcome, reason: reason, waitedMicros: elapsedMicros, now: now)
        }
        if let quarantinedFor {
            Logger.warning("event=address_quarantined address=\(address) for_ms=\(quarantinedFor / 1000) outcome=\(outcome) reason=\"\(reason)\"")
        }
    }

    /// A failure that concerns `host` alone (its certificate, a reset before any response byte): `host`
    /// skips the address for a while; other hosts on it are not affected. `outcome` is counted when given.
    func hostFailed(_ address: SocketAddress, for host: UpstreamHostKey, reason: String, outcome: UpstreamAttemptOutcome? = nil) {
        let now = MonotonicClock.nowMicros()
        let avoidedFor = learn { state in
            if let outcome { state.counters.attempts[outcome, default: 0] += 1 }
            return state.table.recordHostFailure(address, for: host, reason: reason, now: now)
        }
        if let avoidedFor {
            Logger.warning("event=address_avoided host=\(host) address=\(address) for_ms=\(avoidedFor / 1000) reason=\"\(reason)\"")
        }
    }

    func recordUsed(_ address: SocketAddress, for host: UpstreamHostKey) {
        state.withLock { $0.table.recordUsed(address, for: host) }
    }

    /// `address`, `position` in the plan's order, won a race of `host`'s addresses.
    func recordWin(position: Int, address: SocketAddress, host: UpstreamHostKey?) {
        state.withLock { state in
            state.counters.countWin(position: position)
            if let host { state.table.recordRaceWin(address, for: host) }
        }
    }

    func recordFirstByte(_ address: SocketAddress, for host: UpstreamHostKey, micros: Int64) {
        let now = MonotonicClock.nowMicros()
        learn { $0.table.recordFirstByte(address, for: host, micros: micros, now: now) }
    }

    /// Whether a pooled connection to `address` may still be used when no plan could be made.
    func isQuarantined(_ address: SocketAddress) -> Bool {
        state.withLock { $0.table.health(of: address)?.quarantinedUntilMicros != nil }
    }

    func counters() -> UpstreamSelectionCounters {
        state.withLock { state in
            var counters = state.counters
            counters.quarantined = state.table.quarantinedCount
            return counters
        }
    }

    /// Formatted outside the lock, from a copy of the table.
    func upstreamsJSON() -> String {
        let now = MonotonicClock.nowMicros()
        let table = state.withLock { $0.table }
        return table.upstreamsJSON(now: now)
    }
}

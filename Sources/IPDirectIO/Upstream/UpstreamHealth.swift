import IPDirectCore
import Synchronization

/// The address table and selection counters every worker shares, behind one lock. Each call takes
/// the lock once, for microseconds; times are read from the monotonic clock here.
final class UpstreamHealth: Sendable {
    struct State {
        var table: AddressHealthTable
        var counters = UpstreamSelectionCounters()
    }

    let state: Mutex<State>

    init(settings: AddressHealthSettings) {
        state = Mutex(State(table: AddressHealthTable(settings: settings)))
    }

    /// A reload's new quarantine and attempt-delay settings; what was learned stays.
    func apply(_ settings: AddressHealthSettings) {
        state.withLock { $0.table.settings = settings }
    }

    func plan(for host: UpstreamHostKey, candidates: [SocketAddress], mode: BalanceMode) -> AddressPlan {
        let now = MonotonicClock.nowMicros()
        return state.withLock { $0.table.plan(for: host, candidates: candidates, mode: mode, now: now) }
    }

    /// One attempt's end, from the connector. Logs a quarantine and a recovery.
    func record(_ address: SocketAddress, outcome: UpstreamAttemptOutcome, reason: String, elapsedMicros: Int64) {
        let now = MonotonicClock.nowMicros()
        var quarantinedFor: Int64?
        var recovered = false
        state.withLock { state in
            state.counters.attempts[outcome, default: 0] += 1
            if outcome == .connected {
                recovered = state.table.recordConnected(address, micros: elapsedMicros, now: now)
            } else {
                quarantinedFor = state.table.recordFailure(address, outcome: outcome, reason: reason,
                                                           waitedMicros: elapsedMicros, now: now)
            }
        }
        if let quarantinedFor {
            Logger.warning("event=address_quarantined address=\(address) for_ms=\(quarantinedFor / 1000) outcome=\(outcome) reason=\"\(reason)\"")
        }
        if recovered { Logger.info("event=address_recovered address=\(address) by=connection") }
    }

    /// A failure seen after TCP stood: TLS refused, or the server reset before any response byte.
    func recordFailureAfterConnect(_ address: SocketAddress, outcome: UpstreamAttemptOutcome, reason: String) {
        record(address, outcome: outcome, reason: reason, elapsedMicros: 0)
    }

    func recordUsed(_ address: SocketAddress, for host: UpstreamHostKey) {
        state.withLock { $0.table.recordUsed(address, for: host) }
    }

    func recordWin(position: Int) {
        state.withLock { $0.counters.countWin(position: position) }
    }

    func recordFirstByte(_ address: SocketAddress, micros: Int64) {
        let now = MonotonicClock.nowMicros()
        state.withLock { $0.table.recordFirstByte(address, micros: micros, now: now) }
    }

    func counters() -> UpstreamSelectionCounters {
        state.withLock { state in
            var counters = state.counters
            counters.quarantined = state.table.quarantinedCount
            return counters
        }
    }

    func upstreamsJSON() -> String {
        let now = MonotonicClock.nowMicros()
        return state.withLock { $0.table.upstreamsJSON(now: now) }
    }
}

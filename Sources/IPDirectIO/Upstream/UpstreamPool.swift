import CEvent
import IPDirectCore

/// Idle keep-alive connections per (scheme, host, port), most recently used first. Each worker has
/// its own pool, so no locking: connections never cross threads.
///
/// A key's list stays (empty, with its capacity) when its last connection is taken, so a host in steady
/// keep-alive use checks its connection in and out without allocating; empty lists are swept only when
/// there are more than `keptSlots` keys.
///
/// Idle connections time out through one timer for the whole pool, as a sweep over the oldest of each list,
/// rather than a timer per connection: setting a connection's own timeout at every check-in cost a timer
/// heap update per request.
final class UpstreamPool {
    /// How many keys the pool keeps lists for before it drops the empty ones, so hosts visited once do not
    /// pile up.
    static let defaultKeptSlots = 256

    typealias Lists = [UpstreamPoolKey: [UpstreamConnection]]
    /// Where a connection's list was when it was last taken from the pool, and `keysChanged` then: while no key
    /// has come or gone since, the index still finds the list and the connection goes back without its key
    /// being hashed again.
    struct RememberedList {
        let index: Lists.Index
        let keysChanged: Int
    }

    /// Oldest first in each list: check-in appends.
    private var idle: Lists = [:]
    /// Counts the keys added to and removed from `idle`.
    private var keysChanged = 0
    private let maxIdlePerKey: Int
    private let idleTimeoutMicros: Int64
    private let keptSlots: Int
    private let sweepTimer: Timer
    private let clock: TurnClock
    /// When the armed sweep runs; nil while none is armed.
    private var sweepDueMicros: Int64?

    init(base: EventBase, maxIdlePerKey: Int, idleTimeoutMillis: Int, keptSlots: Int = UpstreamPool.defaultKeptSlots) {
        self.maxIdlePerKey = maxIdlePerKey
        idleTimeoutMicros = Int64(idleTimeoutMillis) * 1000
        self.keptSlots = keptSlots
        sweepTimer = Timer(base: base)
        clock = base.clock
        sweepTimer.action = { [unowned self] in sweep() }
    }

    var idleCount: Int { idle.values.reduce(0) { $0 + $1.count } }

    /// Keys with a list, empty ones included.
    var slotCount: Int { idle.count }

    /// Takes a live pooled connection for `key` to the most preferred of `plan.reusable` (the most
    /// recently pooled one to that address), discarding dead ones found on the way. Idle connections to
    /// addresses the plan no longer keeps (gone from the answer, quarantined, far slower than the best)
    /// are closed: they get no new requests.
    func checkout(key: UpstreamPoolKey, plan: AddressPlan) -> UpstreamConnection? {
        // The list is changed where it lies (through its index), so taking from it copies nothing and the
        // key is hashed once.
        guard let slot = idle.index(forKey: key), !idle.values[slot].isEmpty else { return nil }
        idle.values[slot].removeAll { connection in
            guard plan.keepsIdle.contains(connection.address) else {
                connection.pool = nil
                connection.close()
                return true
            }
            return false
        }
        for address in plan.reusable {
            while let index = idle.values[slot].lastIndex(where: { $0.address == address }) {
                let connection = idle.values[slot].remove(at: index)
                connection.pool = nil
                if connection.looksReusable {
                    connection.rememberedList = RememberedList(index: slot, keysChanged: keysChanged)
                    // Reading stays enabled; the new owner takes the callbacks over and sets its own timeout.
                    return connection
                }
                connection.close()
            }
        }
        return nil
    }

    /// Takes the most recently pooled live connection for `key` whose address passes `usable`.
    func checkout(key: UpstreamPoolKey, where usable: (SocketAddress) -> Bool) -> UpstreamConnection? {
        guard let slot = idle.index(forKey: key) else { return nil }
        while let index = idle.values[slot].lastIndex(where: { usable($0.address) }) {
            let connection = idle.values[slot].remove(at: index)
            connection.pool = nil
            if connection.looksReusable {
                connection.rememberedList = RememberedList(index: slot, keysChanged: keysChanged)
                return connection
            }
            connection.close()
        }
        return nil
    }

    /// Pools a connection whose last exchange ended cleanly. While pooled, any byte or EOF from the
    /// server, or the idle timeout, drops it (a server that closed is never reused).
    func checkin(_ connection: consuming UpstreamConnection) {
        guard maxIdlePerKey > 0, let key = connection.key else {
            connection.close()
            return
        }
        connection.reused = true
        connection.pool = self
        connection.socket.handOver(to: connection, calling: BufferEventCallbacks.pooled)
        let now = clock.nowMicros
        connection.keepReadTimeoutUntilReused(pooledAt: now)
        connection.socket.resumeReading()
        if sweepDueMicros == nil { scheduleSweep(at: now + idleTimeoutMicros, now: now) }
        let remembered = connection.rememberedList.flatMap { $0.keysChanged == keysChanged ? $0.index : nil }
        guard let slot = remembered ?? idle.index(forKey: key) else {
            if idle.count >= keptSlots { idle = idle.filter { !$0.value.isEmpty } }
            idle[key] = [consume connection]
            keysChanged += 1
            return
        }
        if idle.values[slot].count >= maxIdlePerKey {
            idle.values[slot].removeFirst().close()
        }
        idle.values[slot].append(consume connection)
    }

    /// An event on an idle connection. The read timeout its last exchange left may fire while it is pooled: it
    /// is cleared and the connection stays until the pool's own idle timeout. EOF or an error drops it.
    func idleConnection(_ connection: UpstreamConnection, reported events: Int16) {
        let broken = Int16(BEV_EVENT_EOF | BEV_EVENT_ERROR)
        guard events & Int16(BEV_EVENT_TIMEOUT) != 0, events & broken == 0 else { return drop(connection) }
        connection.setReadTimeout(nil)
        connection.socket.resumeReading()
    }

    /// Server sent bytes, closed or failed: the connection is no longer usable.
    func drop(_ connection: UpstreamConnection) {
        guard let key = connection.key, let slot = idle.index(forKey: key),
              let index = idle.values[slot].firstIndex(where: { $0 === connection }) else { return }
        idle.values[slot].remove(at: index)
        connection.close()
    }

    func closeAll() {
        for list in idle.values { list.forEach { $0.close() } }
        idle.removeAll()
        keysChanged += 1
        sweepTimer.cancel()
        sweepDueMicros = nil
    }

    /// Closes the connections idle for the idle timeout, then waits for the oldest of those left.
    private func sweep() {
        sweepDueMicros = nil
        let now = clock.nowMicros
        var oldest: Int64?
        // Walked by index rather than through `idle.indices`, which would hold the table and make the first
        // change below copy it (and move every list a connection remembers).
        var slot = idle.startIndex
        while slot != idle.endIndex {
            defer { idle.formIndex(after: &slot) }
            let expired = idle.values[slot].prefix { $0.pooledAtMicros + idleTimeoutMicros <= now }.count
            for connection in idle.values[slot][..<expired] {
                connection.pool = nil
                connection.close()
            }
            idle.values[slot].removeFirst(expired)
            if let first = idle.values[slot].first { oldest = min(oldest ?? first.pooledAtMicros, first.pooledAtMicros) }
        }
        if let oldest { scheduleSweep(at: oldest + idleTimeoutMicros, now: now) }
    }

    private func scheduleSweep(at due: Int64, now: Int64) {
        sweepDueMicros = due
        // Rounded up: a sweep that ran early would find nothing due and arm itself again at once.
        sweepTimer.schedule(afterMillis: Int((max(0, due - now) + 999) / 1000))
    }
}

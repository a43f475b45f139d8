import CEvent
import IPDirectCore

/// Idle keep-alive connections per (scheme, host, port), most recently used first. Each worker has
/// its own pool, so no locking: connections never cross threads.
///
/// A key's list stays (empty, with its capacity) when its last connection is taken, so a host in steady
/// keep-alive use checks its connection in and out without allocating; empty lists are swept only when
/// there are more than `keptSlots` keys.
final class UpstreamPool {
    /// How many keys the pool keeps lists for before it drops the empty ones, so hosts visited once do not
    /// pile up.
    static let defaultKeptSlots = 256

    private var idle: [UpstreamPoolKey: [UpstreamConnection]] = [:]
    private let maxIdlePerKey: Int
    private let idleTimeoutMillis: Int
    private let keptSlots: Int

    init(maxIdlePerKey: Int, idleTimeoutMillis: Int, keptSlots: Int = UpstreamPool.defaultKeptSlots) {
        self.maxIdlePerKey = maxIdlePerKey
        self.idleTimeoutMillis = idleTimeoutMillis
        self.keptSlots = keptSlots
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
            if connection.looksReusable { return connection }
            connection.close()
        }
        return nil
    }

    /// Pools a connection whose last exchange ended cleanly. While pooled, any byte or EOF from the
    /// server, or the idle timeout, drops it (a server that closed is never reused).
    func checkin(_ connection: UpstreamConnection) {
        guard maxIdlePerKey > 0, let key = connection.key else {
            connection.close()
            return
        }
        connection.reused = true
        connection.pool = self
        connection.socket.handOver(to: connection, calling: BufferEventCallbacks.pooled)
        connection.setReadTimeout(idleTimeoutMillis, idle: true)
        connection.socket.resumeReading()
        guard let slot = idle.index(forKey: key) else {
            if idle.count >= keptSlots { idle = idle.filter { !$0.value.isEmpty } }
            idle[key] = [connection]
            return
        }
        if idle.values[slot].count >= maxIdlePerKey {
            idle.values[slot].removeFirst().close()
        }
        idle.values[slot].append(connection)
    }

    /// Server sent bytes, closed, failed or the idle timeout fired: the connection is no longer usable.
    func drop(_ connection: UpstreamConnection) {
        guard let key = connection.key, let slot = idle.index(forKey: key),
              let index = idle.values[slot].firstIndex(where: { $0 === connection }) else { return }
        idle.values[slot].remove(at: index)
        connection.close()
    }

    func closeAll() {
        for list in idle.values { list.forEach { $0.close() } }
        idle.removeAll()
    }
}

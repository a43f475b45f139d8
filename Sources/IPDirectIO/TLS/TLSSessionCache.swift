import CEvent
import Synchronization

/// TLS sessions kept for resumption, one per "host:port", oldest dropped first past `capacity`.
/// Keyed by the name the client asked for, never by IP alone: a session is bound to the server
/// identity that was verified for it. Owns one reference to each SSL_SESSION it holds.
///
/// Every worker loop shares one cache (through the one `TLSClientContext`), so a session learned on one
/// loop resumes on another; each call takes the lock, the new-session callback included.
final class TLSSessionCache: Sendable {
    /// `@unchecked Sendable`: the SSL_SESSION pointers are touched under the lock only, and OpenSSL counts
    /// their references atomically, so a session handed to one loop's SSL may be freed here by another.
    private struct Entry: @unchecked Sendable {
        var session: OpaquePointer
        /// Insertion stamp; an `order` record with an older stamp is stale.
        var stamp: UInt64
    }

    private struct State: @unchecked Sendable {
        var entries: [String: Entry] = [:]
        /// Keys in insertion order, oldest first from `orderStart`; records of replaced entries are skipped.
        var order: [(key: String, stamp: UInt64)] = []
        var orderStart = 0
        var nextStamp: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    deinit {
        state.withLock { state in
            for entry in state.entries.values { SSL_SESSION_free(entry.session) }
        }
    }

    var count: Int { state.withLock { $0.entries.count } }

    /// Keeps `session` for `key`, taking over the caller's reference and replacing an older session.
    func store(_ session: OpaquePointer, for key: String) {
        guard capacity > 0 else { return SSL_SESSION_free(session) }
        state.withLock { state in
            if let old = state.entries[key] { SSL_SESSION_free(old.session) }
            state.nextStamp += 1
            state.entries[key] = Entry(session: session, stamp: state.nextStamp)
            state.order.append((key, state.nextStamp))
            while state.entries.count > capacity { TLSSessionCache.evictOldest(&state) }
            TLSSessionCache.compactOrder(&state, capacity: capacity)
        }
    }

    /// From the new-session callback: keeps `session` (taking OpenSSL's reference) under the key of the
    /// connection it arrived on; false leaves the reference with OpenSSL.
    func keep(_ session: OpaquePointer, arrivedOn ssl: OpaquePointer) -> Bool {
        guard SSL_SESSION_is_resumable(session) == 1,
              let key = SSL_get_ex_data(ssl, OpenSSLCallbacks.cacheKeyIndex) else { return false }
        store(session, for: String(cString: key.assumingMemoryBound(to: CChar.self)))
        return true
    }

    /// Offers the session kept for `key` on `ssl`; true when one was offered. A TLS 1.3 ticket is
    /// offered once and forgotten: clients should not reuse a ticket (RFC 8446 §C.4), and the server
    /// sends fresh ones on the resumed connection. Under one lock, so two loops never both take a ticket.
    @discardableResult
    func offer(to ssl: OpaquePointer, key: String) -> Bool {
        state.withLock { state in
            guard let entry = state.entries[key] else { return false }
            guard SSL_SESSION_is_resumable(entry.session) == 1, SSL_set_session(ssl, entry.session) == 1 else {
                TLSSessionCache.remove(key, from: &state)
                return false
            }
            if SSL_SESSION_get_protocol_version(entry.session) >= TLS1_3_VERSION { TLSSessionCache.remove(key, from: &state) }
            return true
        }
    }

    /// Forgets the session for `key`, e.g. after a failed handshake or a pin mismatch.
    func remove(_ key: String) {
        state.withLock { TLSSessionCache.remove(key, from: &$0) }
    }

    private static func remove(_ key: String, from state: inout State) {
        guard let entry = state.entries.removeValue(forKey: key) else { return }
        SSL_SESSION_free(entry.session)
    }

    private static func evictOldest(_ state: inout State) {
        while state.orderStart < state.order.count {
            let record = state.order[state.orderStart]
            state.orderStart += 1
            if let entry = state.entries[record.key], entry.stamp == record.stamp {
                remove(record.key, from: &state)
                return
            }
        }
    }

    /// Keeps `order` proportional to the live entries: drops consumed records and, when replaced or
    /// removed keys have left many stale records, the stale ones.
    private static func compactOrder(_ state: inout State, capacity: Int) {
        if state.orderStart > capacity {
            state.order.removeFirst(state.orderStart)
            state.orderStart = 0
        }
        if state.order.count - state.orderStart > 2 * max(capacity, state.entries.count) {
            let entries = state.entries
            state.order = state.order[state.orderStart...].filter { record in
                entries[record.key].map { $0.stamp == record.stamp } ?? false
            }
            state.orderStart = 0
        }
    }
}

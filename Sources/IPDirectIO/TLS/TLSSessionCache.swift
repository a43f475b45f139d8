import CEvent

/// TLS sessions kept for resumption, one per "host:port", oldest dropped first past `capacity`.
/// Keyed by the name the client asked for, never by IP alone: a session is bound to the server
/// identity that was verified for it. Owns one reference to each SSL_SESSION it holds.
final class TLSSessionCache {
    private struct Entry {
        var session: OpaquePointer
        /// Insertion stamp; an `order` record with an older stamp is stale.
        var stamp: UInt64
    }

    let capacity: Int
    private var entries: [String: Entry] = [:]
    /// Keys in insertion order, oldest first from `orderStart`; records of replaced entries are skipped.
    private var order: [(key: String, stamp: UInt64)] = []
    private var orderStart = 0
    private var nextStamp: UInt64 = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    deinit {
        for entry in entries.values { SSL_SESSION_free(entry.session) }
    }

    var count: Int { entries.count }

    /// Keeps `session` for `key`, taking over the caller's reference and replacing an older session.
    func store(_ session: OpaquePointer, for key: String) {
        guard capacity > 0 else { return SSL_SESSION_free(session) }
        if let old = entries[key] { SSL_SESSION_free(old.session) }
        nextStamp += 1
        entries[key] = Entry(session: session, stamp: nextStamp)
        order.append((key, nextStamp))
        while entries.count > capacity { evictOldest() }
        compactOrder()
    }

    /// Offers the session kept for `key` on `ssl`; true when one was offered. A TLS 1.3 ticket is
    /// offered once and forgotten: clients should not reuse a ticket (RFC 8446 §C.4), and the server
    /// sends fresh ones on the resumed connection.
    @discardableResult
    func offer(to ssl: OpaquePointer, key: String) -> Bool {
        guard let entry = entries[key] else { return false }
        guard SSL_SESSION_is_resumable(entry.session) == 1, SSL_set_session(ssl, entry.session) == 1 else {
            remove(key)
            return false
        }
        if SSL_SESSION_get_protocol_version(entry.session) >= TLS1_3_VERSION { remove(key) }
        return true
    }

    /// Forgets the session for `key`, e.g. after a failed handshake or a pin mismatch.
    func remove(_ key: String) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        SSL_SESSION_free(entry.session)
    }

    private func evictOldest() {
        while orderStart < order.count {
            let record = order[orderStart]
            orderStart += 1
            if let entry = entries[record.key], entry.stamp == record.stamp {
                remove(record.key)
                return
            }
        }
    }

    /// Keeps `order` proportional to the live entries: drops consumed records and, when replaced or
    /// removed keys have left many stale records, the stale ones.
    private func compactOrder() {
        if orderStart > capacity {
            order.removeFirst(orderStart)
            orderStart = 0
        }
        if order.count - orderStart > 2 * max(capacity, entries.count) {
            order = order[orderStart...].filter { record in entries[record.key].map { $0.stamp == record.stamp } ?? false }
            orderStart = 0
        }
    }
}

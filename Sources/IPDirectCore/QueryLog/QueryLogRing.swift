/// The newest `capacity` query-log entries of one worker. Each worker writes its own ring from its own
/// loop, so keeping it costs a copy into a slot and never a lock another worker waits on; the admin
/// listener merges the rings when it is asked.
public struct QueryLogRing: Sendable {
    public let capacity: Int
    private var slots: [QueryLogEntry] = []
    /// The slot the next entry overwrites once the ring is full.
    private var next = 0

    /// `capacity` 0 keeps nothing (`[dns] query_log = 0`).
    public init(capacity: Int) {
        self.capacity = max(0, capacity)
        slots.reserveCapacity(self.capacity)
    }

    public var count: Int { slots.count }

    public mutating func append(_ entry: QueryLogEntry) {
        guard capacity > 0 else { return }
        if slots.count < capacity {
            slots.append(entry)
        } else {
            slots[next] = entry
        }
        next = (next + 1) % capacity
    }

    /// What the ring holds, newest first.
    public var newestFirst: [QueryLogEntry] {
        guard slots.count == capacity else { return slots.reversed() }
        return (slots[..<next].reversed() + slots[next...].reversed())
    }

    /// The newest `limit` entries of several rings, newest first. Each ring is in order already, so this
    /// only interleaves them.
    public static func merged(_ rings: [[QueryLogEntry]], limit: Int) -> [QueryLogEntry] {
        var all = rings.flatMap { $0 }
        all.sort { $0.monotonicMicros > $1.monotonicMicros }
        return Array(all.prefix(max(0, limit)))
    }
}

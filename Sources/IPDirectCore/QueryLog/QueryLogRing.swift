/// The newest `capacity` query-log records of one worker. Each worker writes its own ring from its own
/// loop, so keeping it costs a copy into a slot and never a lock another worker waits on; the admin
/// listener words the records and merges the rings when it is asked.
public struct QueryLogRing: Sendable {
    public let capacity: Int
    private var slots: [QueryLogRecord] = []
    /// The slot the next entry overwrites once the ring is full.
    private var next = 0

    /// `capacity` 0 keeps nothing (`[dns] query_log = 0`).
    public init(capacity: Int) {
        self.capacity = max(0, capacity)
        slots.reserveCapacity(self.capacity)
    }

    public var count: Int { slots.count }

    public mutating func append(_ record: QueryLogRecord) {
        guard capacity > 0 else { return }
        if slots.count < capacity {
            slots.append(record)
        } else {
            slots[next] = record
        }
        next = next + 1 == capacity ? 0 : next + 1
    }

    public mutating func append(_ entry: QueryLogEntry) {
        append(.written(entry))
    }

    /// What the ring holds, newest first, as it was recorded.
    public var newestRecordsFirst: [QueryLogRecord] {
        guard slots.count == capacity else { return slots.reversed() }
        return (slots[..<next].reversed() + slots[next...].reversed())
    }

    /// What the ring holds, newest first, in words.
    public var newestFirst: [QueryLogEntry] {
        newestRecordsFirst.map(\.entry)
    }

    /// The newest `limit` entries of several rings, newest first. Each ring is in order already, so this
    /// only interleaves them.
    public static func merged(_ rings: [[QueryLogEntry]], limit: Int) -> [QueryLogEntry] {
        var all = rings.flatMap { $0 }
        all.sort { $0.monotonicMicros > $1.monotonicMicros }
        return Array(all.prefix(max(0, limit)))
    }
}

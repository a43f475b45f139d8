/// The newest `capacity` query-log records of one worker. Each worker writes its own ring from its own
/// loop, so keeping it costs a copy into a slot and never a lock another worker waits on; the admin
/// listener words the records and merges the rings when it is asked.
public struct QueryLogRing: Sendable {
    public let capacity: Int
    private var slots: [QueryLogRecord] = []
    /// The slot the next entry overwrites once the ring is full.
    private var next = 0
    /// Lookups that repeated the newest record, counted here until another record comes, so each costs a
    /// comparison and not a record's copy.
    private var newestRepeats: QueryLogRecord.ProxyLookup?

    /// `capacity` 0 keeps nothing (`[dns] query_log = 0`).
    public init(capacity: Int) {
        self.capacity = max(0, capacity)
        slots.reserveCapacity(self.capacity)
    }

    public var count: Int { slots.count }

    public mutating func append(_ record: QueryLogRecord) {
        guard capacity > 0 else { return }
        settleRepeats()
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

    /// A proxy lookup that `isRepeat(of:)` the newest record is counted in that record rather than given a slot:
    /// a client's thousands of requests for one name would otherwise push every other lookup out of the ring.
    public mutating func appendProxyLookup(_ lookup: QueryLogRecord.ProxyLookup) {
        guard capacity > 0 else { return }
        // Counted in place: a copy of the kept lookup would cost what counting saves.
        if newestRepeats != nil {
            if newestRepeats!.countRepeat(lookup) { return }
        } else if case .proxyLookup(var newest) = newestRecord, newest.countRepeat(lookup) {
            newestRepeats = newest
            return
        }
        append(.proxyLookup(lookup))
    }

    private var newestIndex: Int? {
        guard !slots.isEmpty else { return nil }
        return next == 0 ? slots.count - 1 : next - 1
    }

    private var newestRecord: QueryLogRecord? { newestIndex.map { slots[$0] } }

    /// Writes the counted repeats into the newest record.
    private mutating func settleRepeats() {
        guard let repeated = newestRepeats, let newest = newestIndex else { return }
        newestRepeats = nil
        slots[newest] = .proxyLookup(repeated)
    }

    /// What the ring holds, newest first, as it was recorded.
    public var newestRecordsFirst: [QueryLogRecord] {
        var records = slots.count == capacity ? slots[..<next].reversed() + slots[next...].reversed() : slots.reversed()
        if let newestRepeats { records[0] = .proxyLookup(newestRepeats) }
        return records
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

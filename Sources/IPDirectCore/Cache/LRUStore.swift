/// A bounded key-value store that forgets the least recently used key first.
///
/// Entries live in one array of slots chained into a doubly linked recency list,
/// so lookup, use, insert and eviction are all O(1); freed slots are reused, so
/// the array never grows past the capacity.
public struct LRUStore<Key: Hashable, Value> {
    fileprivate struct Slot {
        var key: Key
        var value: Value
        /// Towards the most recently used end; `nil` at the head.
        var newer: Int?
        /// Towards the least recently used end; `nil` at the tail.
        var older: Int?
    }

    /// The most entries kept; inserting beyond it evicts the least recently used.
    public let capacity: Int
    private var slots: [Slot?] = []
    private var freeSlots: [Int] = []
    private var index: [Key: Int] = [:]
    private var mostRecent: Int?
    private var leastRecent: Int?

    /// A capacity below one is raised to one: a cache that cannot hold anything
    /// would turn every lookup into a query.
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    public var count: Int { index.count }

    /// The value for `key` without changing its recency.
    public func peek(_ key: Key) -> Value? {
        index[key].flatMap { slots[$0]?.value }
    }

    /// The value for `key`, which becomes the most recently used.
    public mutating func use(_ key: Key) -> Value? {
        guard let position = index[key] else { return nil }
        moveToFront(position)
        return slots[position]?.value
    }

    /// Stores `value` as the most recently used and returns the entry evicted to
    /// make room, if any. Replacing an existing key evicts nothing.
    @discardableResult
    public mutating func set(_ key: Key, _ value: Value) -> (key: Key, value: Value)? {
        if let position = index[key] {
            slots[position]?.value = value
            moveToFront(position)
            return nil
        }
        var evicted: (key: Key, value: Value)?
        if index.count >= capacity, let oldest = leastRecent, let slot = slots[oldest] {
            evicted = (slot.key, slot.value)
            remove(slot.key)
        }
        let slot = Slot(key: key, value: value, newer: nil, older: nil)
        let position: Int
        if let reused = freeSlots.popLast() {
            slots[reused] = slot
            position = reused
        } else {
            slots.append(slot)
            position = slots.count - 1
        }
        index[key] = position
        linkAtFront(position)
        return evicted
    }

    /// Changes the value for `key` in place without changing its recency.
    public mutating func update(_ key: Key, _ change: (inout Value) -> Void) {
        guard let position = index[key], var slot = slots[position] else { return }
        change(&slot.value)
        slots[position] = slot
    }

    @discardableResult
    public mutating func remove(_ key: Key) -> Value? {
        guard let position = index.removeValue(forKey: key), let slot = slots[position] else { return nil }
        unlink(position)
        slots[position] = nil
        freeSlots.append(position)
        return slot.value
    }

    public mutating func removeAll() {
        slots.removeAll()
        freeSlots.removeAll()
        index.removeAll()
        mostRecent = nil
        leastRecent = nil
    }

    /// Every entry, most recently used first.
    public var entriesByRecency: [(key: Key, value: Value)] {
        var result: [(key: Key, value: Value)] = []
        result.reserveCapacity(index.count)
        var cursor = mostRecent
        while let position = cursor, let slot = slots[position] {
            result.append((slot.key, slot.value))
            cursor = slot.older
        }
        return result
    }

    private mutating func moveToFront(_ position: Int) {
        guard mostRecent != position else { return }
        unlink(position)
        linkAtFront(position)
    }

    private mutating func linkAtFront(_ position: Int) {
        slots[position]?.newer = nil
        slots[position]?.older = mostRecent
        if let previousHead = mostRecent { slots[previousHead]?.newer = position }
        mostRecent = position
        if leastRecent == nil { leastRecent = position }
    }

    private mutating func unlink(_ position: Int) {
        guard let slot = slots[position] else { return }
        if let newer = slot.newer { slots[newer]?.older = slot.older } else { mostRecent = slot.older }
        if let older = slot.older { slots[older]?.newer = slot.newer } else { leastRecent = slot.newer }
        slots[position]?.newer = nil
        slots[position]?.older = nil
    }
}

extension LRUStore: Sendable where Key: Sendable, Value: Sendable {}
extension LRUStore.Slot: Sendable where Key: Sendable, Value: Sendable {}

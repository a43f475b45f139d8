/// Values waiting under a deadline each, such as kept-alive connections between requests: the earliest
/// deadline is always at hand, and a value can leave early (its connection spoke) without leaving a stale
/// timer entry behind.
///
/// Slots live in fixed-size pages, so the lot grows without moving or copying what is parked (a doubling
/// array would leave its old storage behind as free heap between live blocks), and a slot freed is reused
/// by the next arrival. A ticket names a slot and its generation, so one that outlived its value never
/// reaches the value parked after it.
public struct ParkingLot<Value> {
    /// One parked value, until it leaves.
    public struct Ticket: Hashable, Sendable {
        public let slot: UInt32
        public let generation: UInt32

        @usableFromInline init(slot: UInt32, generation: UInt32) {
            self.slot = slot
            self.generation = generation
        }

        /// Both halves in one word, the size of a kernel event's user data.
        @inlinable public init(packed: UInt64) {
            slot = UInt32(truncatingIfNeeded: packed)
            generation = UInt32(truncatingIfNeeded: packed >> 32)
        }

        @inlinable public var packed: UInt64 { UInt64(generation) << 32 | UInt64(slot) }
    }

    @usableFromInline
    struct Slot {
        @usableFromInline var value: Value?
        /// Moves on each time the slot is vacated, which makes the tickets issued for it stale.
        @usableFromInline var generation: UInt32 = 0
        @usableFromInline var deadline: Int64 = 0
        /// Where the slot sits in `byDeadline` while occupied.
        @usableFromInline var heapPosition = 0

        @usableFromInline init() {}
    }

    /// Slots allocated together; a page is never resized.
    public static var slotsPerPage: Int { 64 }

    @usableFromInline var pages: [ContiguousArray<Slot>] = []
    @usableFromInline var vacant: [UInt32] = []
    /// Occupied slots as a binary min-heap on their deadlines.
    @usableFromInline var byDeadline: [UInt32] = []

    @inlinable public init() {}

    @inlinable public var count: Int { byDeadline.count }
    @inlinable public var isEmpty: Bool { byDeadline.isEmpty }
    /// Slots allocated so far, occupied or vacant.
    @inlinable public var capacity: Int { pages.reduce(0) { $0 + $1.count } }

    /// The soonest deadline of any parked value.
    @inlinable public var earliestDeadline: Int64? {
        byDeadline.first.map { self[slot: $0].deadline }
    }

    /// Every value parked now, in no particular order.
    @inlinable public var tickets: [Ticket] {
        byDeadline.map { Ticket(slot: $0, generation: self[slot: $0].generation) }
    }

    @inlinable public mutating func park(_ value: Value, until deadline: Int64) -> Ticket {
        let slot = vacant.popLast() ?? newSlot()
        self[slot: slot].value = value
        self[slot: slot].deadline = deadline
        self[slot: slot].heapPosition = byDeadline.count
        byDeadline.append(slot)
        siftUp(from: byDeadline.count - 1)
        return Ticket(slot: slot, generation: self[slot: slot].generation)
    }

    /// The value, when the ticket is still its own.
    @inlinable public subscript(ticket: Ticket) -> Value? {
        isCurrent(ticket) ? self[slot: ticket.slot].value : nil
    }

    /// Changes a parked value in place; nil when the ticket is stale.
    @inlinable public mutating func update<Result>(_ ticket: Ticket, _ change: (inout Value) -> Result) -> Result? {
        guard isCurrent(ticket) else { return nil }
        return change(&self[slot: ticket.slot].value!)
    }

    /// Removes the value and its deadline; nil when the ticket is stale.
    @inlinable public mutating func take(_ ticket: Ticket) -> Value? {
        guard isCurrent(ticket) else { return nil }
        let value = self[slot: ticket.slot].value
        self[slot: ticket.slot].value = nil
        self[slot: ticket.slot].generation &+= 1
        removeFromHeap(at: self[slot: ticket.slot].heapPosition)
        vacant.append(ticket.slot)
        return value
    }

    /// Gives a parked value a new deadline; false when the ticket is stale.
    @discardableResult
    @inlinable public mutating func reschedule(_ ticket: Ticket, until deadline: Int64) -> Bool {
        guard isCurrent(ticket) else { return false }
        self[slot: ticket.slot].deadline = deadline
        let position = self[slot: ticket.slot].heapPosition
        siftUp(from: position)
        siftDown(from: self[slot: ticket.slot].heapPosition)
        return true
    }

    /// The value with the earliest deadline, when that deadline is at or before `now`.
    @inlinable public func firstExpired(now: Int64) -> Ticket? {
        guard let slot = byDeadline.first, self[slot: slot].deadline <= now else { return nil }
        return Ticket(slot: slot, generation: self[slot: slot].generation)
    }

    // MARK: - Storage

    @inlinable func isCurrent(_ ticket: Ticket) -> Bool {
        let index = Int(ticket.slot)
        guard index / Self.slotsPerPage < pages.count, index % Self.slotsPerPage < pages[index / Self.slotsPerPage].count
        else { return false }
        let slot = self[slot: ticket.slot]
        return slot.generation == ticket.generation && slot.value != nil
    }

    @inlinable subscript(slot slot: UInt32) -> Slot {
        get { pages[Int(slot) / Self.slotsPerPage][Int(slot) % Self.slotsPerPage] }
        _modify { yield &pages[Int(slot) / Self.slotsPerPage][Int(slot) % Self.slotsPerPage] }
    }

    @inlinable mutating func newSlot() -> UInt32 {
        if pages.last.map({ $0.count == Self.slotsPerPage }) ?? true {
            var page = ContiguousArray<Slot>()
            page.reserveCapacity(Self.slotsPerPage)
            pages.append(page)
        }
        pages[pages.count - 1].append(Slot())
        return UInt32((pages.count - 1) * Self.slotsPerPage + pages[pages.count - 1].count - 1)
    }

    // MARK: - Deadline heap

    @inlinable mutating func removeFromHeap(at position: Int) {
        let last = byDeadline.count - 1
        if position != last {
            swapInHeap(position, last)
        }
        byDeadline.removeLast()
        guard position < byDeadline.count else { return }
        siftUp(from: position)
        siftDown(from: self[slot: byDeadline[position]].heapPosition)
    }

    @inlinable func earlier(_ first: Int, _ second: Int) -> Bool {
        self[slot: byDeadline[first]].deadline < self[slot: byDeadline[second]].deadline
    }

    @inlinable mutating func swapInHeap(_ first: Int, _ second: Int) {
        byDeadline.swapAt(first, second)
        self[slot: byDeadline[first]].heapPosition = first
        self[slot: byDeadline[second]].heapPosition = second
    }

    @inlinable mutating func siftUp(from start: Int) {
        var position = start
        while position > 0 {
            let parent = (position - 1) / 2
            guard earlier(position, parent) else { return }
            swapInHeap(position, parent)
            position = parent
        }
    }

    @inlinable mutating func siftDown(from start: Int) {
        var position = start
        while true {
            let left = 2 * position + 1
            guard left < byDeadline.count else { return }
            let right = left + 1
            let child = right < byDeadline.count && earlier(right, left) ? right : left
            guard earlier(child, position) else { return }
            swapInHeap(position, child)
            position = child
        }
    }
}

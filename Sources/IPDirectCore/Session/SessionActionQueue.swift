/// The actions events queued and the driver has not yet performed, oldest first. Its slots are kept and
/// written over: dropping performed actions only lowers the count, so neither queuing nor dropping
/// allocates, frees or moves anything once the first events have sized the storage. Made empty, it takes
/// room for `SessionMachine.actionCapacity` actions with the first one: a machine given the slots of an
/// ended connection's (`SessionMachine.reopen(_:)`) then allocates none.
public struct SessionActionQueue: RandomAccessCollection {
    @usableFromInline var slots: [SessionAction] = []
    public private(set) var count = 0

    init() {}

    init(capacity: Int) {
        slots.reserveCapacity(capacity)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    @inlinable
    public subscript(index: Int) -> SessionAction {
        precondition(index < count, "no action queued at \(index)")
        return slots[index]
    }

    /// Slots kept for actions, queued or not.
    public var capacity: Int { slots.capacity }

    // Inlined: every event queues through it, and a call costs as much as the append.
    @inline(__always)
    mutating func append(_ action: SessionAction) {
        if count < slots.count {
            slots[count] = action
        } else {
            appendSlot(action)
        }
        count += 1
    }

    /// Out of line: once the first events have sized the storage, queuing never comes here.
    @inline(never)
    private mutating func appendSlot(_ action: SessionAction) {
        if slots.capacity == 0 { slots.reserveCapacity(SessionMachine.actionCapacity) }
        slots.append(action)
    }

    /// Holds no action, and keeps its slots.
    mutating func removeAll() {
        count = 0
    }

    /// Forgets the actions from `first` on.
    mutating func drop(from first: Int) {
        precondition(first <= count, "dropping actions that were never queued")
        count = first
    }
}

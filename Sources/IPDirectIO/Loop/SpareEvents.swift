import CEvent

/// libevent events of one loop that served a connection and were stopped, kept for the next ones: a new
/// connection makes two (its silent wait's and its session's timer), and event_new and event_free allocate
/// and free each of them. At most `capacity` are kept, about 130 bytes each.
final class SpareEvents {
    /// As many as `SpareSockets` keeps bufferevents.
    static let defaultCapacity = SpareSockets.defaultCapacity

    let capacity: Int
    private let base: EventBase
    private var spares: [OpaquePointer] = []

    init(base: EventBase, capacity: Int = SpareEvents.defaultCapacity) {
        self.base = base
        self.capacity = capacity
        spares.reserveCapacity(capacity)
    }

    deinit {
        for event in spares { event_free(event) }
    }

    /// How many are kept now.
    var count: Int { spares.count }

    /// An event as `event_new` makes it (not added), in a kept one when there is one.
    func event(fd: Int32, events: Int16, callback: event_callback_fn, context: UnsafeMutableRawPointer) -> OpaquePointer? {
        guard let event = spares.popLast() else { return event_new(base.raw, fd, events, callback, context) }
        event_assign(event, base.raw, fd, events, callback, context)
        return event
    }

    /// Stops `event` for good, as `event_free` would, and keeps it when there is room. Nothing may use it
    /// afterwards: the next `event(fd:events:callback:context:)` may hand it to someone else.
    func keep(_ event: OpaquePointer) {
        guard spares.count < capacity else { return event_free(event) }
        event_del(event)
        spares.append(event)
    }
}

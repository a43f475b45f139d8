import CEvent

/// A one-shot libevent timer. `action` runs on the loop thread; re-scheduling replaces any
/// pending firing.
final class Timer {
    private var event: OpaquePointer!
    var action: () -> Void = {}

    private static let fire: event_callback_fn = { _, _, context in
        Unmanaged<Timer>.fromOpaque(context!).takeUnretainedValue().action()
    }

    init(base: EventBase) {
        // The callback argument must be self, which exists only once `event` is set: allocate, then assign.
        event = event_new(base.raw, -1, 0, Timer.fire, nil)
        event_assign(event, base.raw, -1, 0, Timer.fire, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        event_free(event)
    }

    func schedule(afterMillis millis: Int) {
        var delay = timeval(tv_sec: millis / 1000, tv_usec: Int((millis % 1000) * 1000))
        event_add(event, &delay)
    }

    func cancel() {
        event_del(event)
    }
}

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
        event = event_new(base.raw, -1, 0, Timer.fire, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        event_free(event)
    }

    func schedule(afterMillis millis: Int) {
        var delay = timeval(millis: millis)
        event_add(event, &delay)
    }

    func cancel() {
        event_del(event)
    }
}

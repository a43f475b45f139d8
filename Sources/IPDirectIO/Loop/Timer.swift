import CEvent

/// A one-shot libevent timer. `action` runs on the loop thread; re-scheduling replaces any
/// pending firing.
package final class Timer {
    private var event: OpaquePointer!
    /// Held so the loop is freed after this timer's event, however the objects that own both are torn down.
    private let base: EventBase
    package var action: () -> Void = {}

    private static let fire: event_callback_fn = { _, _, context in
        Unmanaged<Timer>.fromOpaque(context!).takeUnretainedValue().action()
    }

    package init(base: EventBase) {
        self.base = base
        event = event_new(base.raw, -1, 0, Timer.fire, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        event_free(event)
    }

    package func schedule(afterMillis millis: Int) {
        var delay = timeval(millis: millis)
        event_add(event, &delay)
    }

    package func cancel() {
        event_del(event)
    }
}

import CEvent

/// Owns one libevent `event_base`; every object created on it belongs to the
/// thread that runs `dispatch()`.
public final class EventBase {
    public let raw: OpaquePointer

    public init() {
        guard let base = event_base_new() else { fatalError("event_base_new failed") }
        raw = base
    }

    deinit { event_base_free(raw) }

    public func dispatch() { event_base_dispatch(raw) }
    public func loopBreak() { event_base_loopbreak(raw) }
    /// Ends the loop once the callbacks already active have run: among them the deferred closes of
    /// bufferevents freed by the running callback, which `loopBreak` would leave until the base is freed.
    public func loopExit() { event_base_loopexit(raw, nil) }
}

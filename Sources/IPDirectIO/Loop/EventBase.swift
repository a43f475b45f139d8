import CEvent

/// Owns one libevent `event_base` and its turn clock; every object created on it belongs to the
/// thread that runs `dispatch()`.
public final class EventBase {
    public let raw: OpaquePointer

    public init() {
        guard let base = event_base_new() else { fatalError("event_base_new failed") }
        raw = base
    }

    deinit {
        // Before the base: they free their own events as they go.
        retired.removeAll()
        event_base_free(raw)
        clock.free()
    }

    /// The time of the loop's current turn, for whatever runs on the loop.
    let clock = TurnClock()

    /// Runs the loop one turn at a time (EVLOOP_ONCE: a turn ends once the callbacks of the events it collected
    /// have run), starting a new turn of `clock` before each. Ends as `event_base_dispatch` does: no event
    /// left, `loopBreak`, `loopExit` or an error.
    public func dispatch() {
        endAsked = false
        var status: Int32
        repeat {
            clock.turnBegins()
            status = event_base_loop(raw, EVLOOP_ONCE)
            if !retired.isEmpty { retired.removeAll(keepingCapacity: true) }
        } while status == 0 && !endReached
        clock.loopEnded()
    }

    /// Objects let go of during the current turn, freed once its callbacks have run.
    private var retired: [AnyObject] = []

    /// Holds `object`, whose last other holder is letting go of it, until the current turn ends (or the loop
    /// does): a callback's owner may be let go of in its own callback, whose frames still run on it, and so
    /// the trampolines need not retain their owner for every call.
    func retire(_ object: AnyObject) {
        retired.append(object)
    }

    /// Set by `loopBreak` and `loopExit`, on the loop's thread, so that a turn that asked for neither needs no
    /// call into libevent to say so.
    private var endAsked = false

    /// A break ends the turn that asked for it; an exit is carried out by a timer of the next turn.
    private var endReached: Bool {
        endAsked && (event_base_got_break(raw) != 0 || event_base_got_exit(raw) != 0)
    }

    /// Only on the loop's thread (another thread posts it through the loop's mailbox).
    public func loopBreak() {
        endAsked = true
        event_base_loopbreak(raw)
    }

    /// Ends the loop once the callbacks already active have run: among them the deferred closes of
    /// bufferevents freed by the running callback, which `loopBreak` would leave until the base is freed. Only
    /// on the loop's thread.
    public func loopExit() {
        endAsked = true
        event_base_loopexit(raw, nil)
    }
}

/// A one-shot timer event set again only when it must fire sooner, as nginx keeps its timers: arming it for
/// a later time than it is already set for records the time, and the early firing sets the event again for
/// the rest; cancelling it records that nothing is due, and its firing is then ignored. A keep-alive request
/// arms and cancels its session's timer several times (head, response, idle), and each real re-arm is an
/// event_add in the loop's timer heap; this way the event is set about once per window instead.
public struct LazyTimer: Sendable, Equatable {
    /// What a firing of the event means.
    public enum Firing: Sendable, Equatable {
        /// The owner's time has come.
        case due
        /// The time moved later since the event was set: set it again for this many milliseconds.
        case early(millis: Int)
        /// Nothing is due: cancelled since the event was set.
        case idle
    }

    /// When the event is set to fire; nil when it is not pending.
    public private(set) var setForMicros: Int64?
    /// When the owner wants to hear of it; nil when nothing is due.
    public private(set) var dueMicros: Int64?

    public init() {}

    /// Makes the timer due `millis` from `now`. Returns the delay the event must be set for, or nil when the
    /// event already fires no later than that (its early firing will set it again).
    public mutating func arm(millis: Int, now: Int64) -> Int? {
        let due = now + Int64(max(millis, 0)) * 1000
        dueMicros = due
        if let setFor = setForMicros, setFor <= due { return nil }
        setForMicros = due
        return max(millis, 0)
    }

    /// Nothing is due any more; the event, if set, stays set and its firing is ignored.
    public mutating func cancel() {
        dueMicros = nil
    }

    /// The event was deleted (its owner let go of the loop): nothing is set and nothing is due.
    public mutating func eventRemoved() {
        setForMicros = nil
        dueMicros = nil
    }

    /// The event fired at `now`. A firing less than a millisecond before the due time counts as due: the
    /// loop measures its timers from the time it cached at the top of its turn, a little before `now` was read.
    public mutating func fired(now: Int64) -> Firing {
        setForMicros = nil
        guard let due = dueMicros else { return .idle }
        let remaining = due - now
        if remaining < 1000 {
            dueMicros = nil
            return .due
        }
        setForMicros = due
        return .early(millis: Int((remaining + 999) / 1000))
    }
}

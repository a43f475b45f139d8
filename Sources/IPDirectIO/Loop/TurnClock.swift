/// The monotonic time of a loop's current turn, as nginx keeps it: while the loop runs, read from the kernel
/// the first time a turn asks for it and kept until the next turn, so the dozen timestamps a request takes
/// on its way through a loop cost one clock read per turn instead of one each (about 30 ns each under
/// kvm-clock). While the loop does not run, every reading comes from the kernel.
///
/// Each callback runs after its turn's events were collected, so the time it reads is at most as old as the
/// work done before it in the same turn: a timeout fires that much later at worst, and a duration within one
/// turn is 0. Only the loop's own thread may use it.
///
/// A handle to state its `EventBase` owns rather than an object: copies are plain pointers, so reading the
/// time counts no reference, and the loop outlives everything that runs on it.
struct TurnClock {
    private struct State {
        var micros: Int64
        var isTurning: Bool
    }

    private static let unread = Int64.min
    private let state: UnsafeMutablePointer<State>

    /// Made, turned and freed by `EventBase` only.
    init() {
        state = .allocate(capacity: 1)
        state.initialize(to: State(micros: TurnClock.unread, isTurning: false))
    }

    func free() { state.deallocate() }

    @inline(__always) var nowMicros: Int64 {
        guard state.pointee.isTurning else { return MonotonicClock.nowMicros() }
        if state.pointee.micros == TurnClock.unread { state.pointee.micros = MonotonicClock.nowMicros() }
        return state.pointee.micros
    }

    /// A turn is about to collect events.
    func turnBegins() { state.pointee = State(micros: TurnClock.unread, isTurning: true) }

    /// The loop has returned.
    func loopEnded() { state.pointee = State(micros: TurnClock.unread, isTurning: false) }
}

/// A client connection accepted with nothing received yet. It waits without a session, so holds no
/// buffers, yet meets the same head deadline a session would have given it from the accept: the deadline
/// and what its passing or a stop means are decided here, and the session made on its first bytes takes
/// the deadline over (`SessionMachine.started(after:now:)`).
public struct FirstBytesWait: Sendable, Equatable {
    /// What the connection's wait comes to.
    public enum Decision: Sendable, Equatable {
        /// The deadline is still ahead (a timer may fire a little early): wait this much longer.
        case wait(millis: Int)
        /// Close the socket; a deadline that passed is reported, as a session's would be.
        case close(timedOut: SessionDeadline.Reason?)
    }

    /// The head deadline, running from the accept.
    let deadline: SessionDeadline

    public init(rules: SessionRules, acceptedAt now: Int64) {
        var deadline = SessionDeadline()
        _ = deadline.arm(.header, millis: rules.proxy.headerTimeoutMs, now: now)
        self.deadline = deadline
    }

    /// How long a connection accepted now may stay silent.
    public static func waitMillis(_ rules: SessionRules) -> Int { rules.proxy.headerTimeoutMs }

    /// The wait's timer fired. A session in this state would have nothing buffered, so it closes without an
    /// answer: a 408 goes only to a client that began a head (RFC 9112 §9.5 lets a server close at any time).
    public func deadlinePassed(now: Int64) -> Decision {
        switch deadline.check(now: now) {
        case .pending(let millis): return .wait(millis: millis)
        case .expired(let reason): return .close(timedOut: reason)
        case .unarmed: return .close(timedOut: nil)
        }
    }

    /// The daemon is stopping: a connection that has asked for nothing is idle, and closes at once, as an
    /// idle session does (RFC 9112 §9.6).
    public func drainRequested() -> Decision { .close(timedOut: nil) }
}

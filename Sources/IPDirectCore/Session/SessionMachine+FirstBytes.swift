extension SessionMachine {
    /// The first bytes (or a FIN) of a connection that waited for them without a session: the head deadline
    /// keeps running from the accept, where `started(now:)` would have begun it.
    public mutating func started(after wait: FirstBytesWait, now: Int64) {
        if transparent != nil { return beginSniffing(now: now) }
        deadline = wait.deadline
        switch deadline.check(now: now) {
        case .pending(let millis): actions.append(.armTimer(millis: millis))
        // Due already: the timer fires on this turn of the loop and finds the deadline passed.
        case .expired, .unarmed: actions.append(.armTimer(millis: 0))
        }
    }
}

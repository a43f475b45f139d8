extension SessionMachine {
    /// Head storage grown past this is freed rather than handed on: a connection that once forwarded a huge
    /// head would otherwise pass its size on for as long as its storage is reused.
    static let maxReusedHeadBytes = 4 * 1024

    /// This machine, whose connection has ended, becomes the machine `SessionMachine(opening)` would make,
    /// in place: only the room it grew stays (its action slots, the storage of the two heads it rewrites
    /// per exchange), which would otherwise be freed here and allocated there again for every connection. No
    /// action, head byte or other state of the connection it served can be read afterwards.
    public mutating func reopen(_ opening: borrowing SessionOpening) {
        state = .readingHead
        // Most often the same rules as the last connection's: testing first spares a retain and a release.
        if rules !== opening.rules { rules = opening.rules }
        deadline = SessionDeadline()
        clientReadClosed = false
        clientWriteShut = false
        clientAskedToClose = false
        draining = opening.draining
        clientPermitted = opening.clientPermitted
        requiresAuthentication = opening.requiresAuthentication
        protocolChosen = false
        request = ProxyRequest.unparsed(at: 0)
        record = ExchangeRecord()
        actions.removeAll()
        payloads.reopen(keepingHeadsOfAtMost: SessionMachine.maxReusedHeadBytes)
        mayRetryOnFreshConnection = false
        lookupFailure = nil
        transparent = opening.transparent
        if let parked = opening.parked {
            state = .parked
            deadline = parked.deadline
            protocolChosen = parked.protocolChosen
        }
    }
}

extension SessionActionPayloads {
    /// Nothing for an action to carry, as a new machine's, but the storage of heads no longer than `limit`.
    mutating func reopen(keepingHeadsOfAtMost limit: Int) {
        reply = []
        requestHead.empty(keepingAtMost: limit)
        responseHead.empty(keepingAtMost: limit)
        upstream = nil
        spliceLimit = nil
        hostFailure = ""
        error = nil
        credentials = nil
    }
}

extension SessionMachine {
    /// Head storage grown past this is freed rather than handed on: a connection that once forwarded a huge
    /// head would otherwise pass its size on for as long as its storage is reused.
    static let maxReusedHeadBytes = 4 * 1024

    /// This new machine takes the room `finished`, the machine of a connection that has ended, grew (its
    /// action slots, the storage of the two heads it rewrites per exchange), which would otherwise be
    /// allocated here and freed there again for every connection. Only the room moves: no action, head byte
    /// or other state of the connection it served can be read through it. `finished` must serve nothing more.
    public mutating func reuseStorage(of finished: inout SessionMachine) {
        precondition(actions.isEmpty, "a machine takes another's storage before it queues anything")
        actions = finished.actions.emptied()
        finished.actions = SessionActionQueue()
        payloads.requestHead = finished.payloads.requestHead.emptied(keepingAtMost: SessionMachine.maxReusedHeadBytes)
        payloads.responseHead = finished.payloads.responseHead.emptied(keepingAtMost: SessionMachine.maxReusedHeadBytes)
        finished.payloads.requestHead = HeadBuffer()
        finished.payloads.responseHead = HeadBuffer()
    }
}

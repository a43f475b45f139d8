/// A parked connection's machine reduced to what tells one parked machine from another; the rest follows
/// from being parked (between requests, nothing shut or closing, the daemon not stopping) or comes with the
/// settings the connection keeps anyway (its rules). Every idle client holds one, so its size is the
/// idle-connection cost.
public struct ParkedSession: Sendable {
    let deadline: SessionDeadline
    let clientPermitted: Bool
    let requiresAuthentication: Bool
    let protocolChosen: Bool

    @usableFromInline
    init(deadline: SessionDeadline, clientPermitted: Bool, requiresAuthentication: Bool, protocolChosen: Bool) {
        self.deadline = deadline
        self.clientPermitted = clientPermitted
        self.requiresAuthentication = requiresAuthentication
        self.protocolChosen = protocolChosen
    }
}

extension SessionMachine {
    /// This machine as a parked connection keeps it; nil unless it is parked. Inlinable: the driver asks its
    /// session's machine, and a call would copy the whole machine out of the session to ask it.
    @inlinable
    public var parked: ParkedSession? {
        guard state.isParked, !clientReadClosed, !clientWriteShut, !clientAskedToClose, !draining else { return nil }
        return ParkedSession(deadline: deadline, clientPermitted: clientPermitted,
                             requiresAuthentication: requiresAuthentication, protocolChosen: protocolChosen)
    }
}

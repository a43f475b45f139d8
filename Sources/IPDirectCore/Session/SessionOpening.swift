/// How a session's machine begins: on a connection just accepted, with what was decided of its client then,
/// or on a parked connection whose next bytes came. Either under the rules its connection was accepted with.
public struct SessionOpening {
    public let rules: SessionRules
    let clientPermitted: Bool
    let requiresAuthentication: Bool
    let draining: Bool
    /// The parked connection's reduced machine; nil for one just accepted.
    let parked: ParkedSession?
    /// What a connection redirected to the transparent listener brought; nil for a proxy client.
    let transparent: TransparentConnection?

    /// A connection just accepted: the client's address is in `[access] clients` or not, `[access]
    /// auth_file` is set or not, the daemon is stopping or not.
    public static func accepted(rules: SessionRules, clientPermitted: Bool, requiresAuthentication: Bool,
                                draining: Bool) -> SessionOpening {
        SessionOpening(rules: rules, clientPermitted: clientPermitted, requiresAuthentication: requiresAuthentication,
                       draining: draining, parked: nil, transparent: nil)
    }

    /// A connection just accepted on the transparent listener. Such a client cannot log in: only `[access]
    /// clients` admits it.
    public static func redirected(rules: SessionRules, clientPermitted: Bool, draining: Bool,
                                  _ connection: TransparentConnection) -> SessionOpening {
        SessionOpening(rules: rules, clientPermitted: clientPermitted, requiresAuthentication: false,
                       draining: draining, parked: nil, transparent: connection)
    }

    /// A parked connection whose next bytes or FIN came.
    public static func woken(rules: SessionRules, parked: ParkedSession) -> SessionOpening {
        SessionOpening(rules: rules, clientPermitted: parked.clientPermitted,
                       requiresAuthentication: parked.requiresAuthentication, draining: false, parked: parked,
                       transparent: nil)
    }
}

extension SessionMachine {
    public init(_ opening: SessionOpening) {
        self.init(rules: opening.rules, clientPermitted: opening.clientPermitted,
                  requiresAuthentication: opening.requiresAuthentication, draining: opening.draining)
        if let parked = opening.parked { restore(parked) }
        transparent = opening.transparent
    }

    /// The parked machine again, under the rules its connection was accepted with.
    public init(rules: SessionRules, parked: ParkedSession) {
        self.init(.woken(rules: rules, parked: parked))
    }

    private mutating func restore(_ parked: ParkedSession) {
        state = .parked
        deadline = parked.deadline
        protocolChosen = parked.protocolChosen
    }
}

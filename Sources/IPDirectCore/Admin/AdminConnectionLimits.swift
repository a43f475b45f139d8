/// Who may hold the admin listener's connections: at most `total` at once, and at most `perClient` from one
/// address, so one local process cannot take them all and shut scrapers and operators out.
public struct AdminConnectionLimits: Sendable {
    public let perClient: Int
    public let total: Int
    private var openByClient: [IPAddress: Int] = [:]
    public private(set) var openCount = 0

    public init(perClient: Int, total: Int) {
        self.perClient = perClient
        self.total = total
    }

    /// Counts a new connection from `client` (nil when the peer address is unknown: counted in the total
    /// only) and returns nil, or says which limit refuses it and counts nothing.
    public mutating func admit(_ client: IPAddress?) -> AdminClosure? {
        guard openCount < total else { return .connectionLimit }
        if let key = client?.unmapped {
            let open = openByClient[key, default: 0]
            guard open < perClient else { return .perClientLimit }
            openByClient[key] = open + 1
        }
        openCount += 1
        return nil
    }

    /// An admitted connection from `client` ended.
    public mutating func release(_ client: IPAddress?) {
        openCount -= 1
        guard let key = client?.unmapped, let open = openByClient[key] else { return }
        // Dropped at zero, so addresses seen once do not accumulate.
        openByClient[key] = open > 1 ? open - 1 : nil
    }

    /// The limit a refusal for `reason` ran into.
    public func limit(for reason: AdminClosure) -> Int {
        reason == .perClientLimit ? perClient : total
    }

    /// What a refused client is told before the connection closes.
    public func refusal(_ reason: AdminClosure) -> AdminResponse {
        switch reason {
        case .perClientLimit:
            return .text(503, "too many admin connections from this address (at most \(perClient))")
        default:
            return .text(503, "too many admin connections (at most \(total))")
        }
    }
}

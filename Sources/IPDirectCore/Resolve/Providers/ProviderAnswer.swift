/// One address from an HTTPDNS answer with the time it may be cached.
public struct AnsweredAddress: Hashable, Sendable, CustomStringConvertible {
    public var address: IPAddress
    /// Seconds, as the provider gave them (RFC 2181 §8: 0 to 2^31 - 1).
    public var ttl: UInt32

    public init(address: IPAddress, ttl: UInt32) {
        self.address = address
        self.ttl = ttl
    }

    public var description: String { "\(address) ttl=\(ttl)" }
}

/// What an HTTPDNS provider said about a name, once its answer passed every check.
public enum ProviderAnswer: Equatable, Sendable, CustomStringConvertible {
    /// The addresses to use, each with its TTL, in the provider's order.
    case addresses([AnsweredAddress])
    /// RFC 8020: the name does not exist (NXDOMAIN); cached as a negative answer.
    case nameDoesNotExist
    /// RFC 2308 §2.2 "NODATA": the name exists, but has no address of the family asked.
    case noAddresses

    /// The smallest TTL of the addresses (RFC 2181 §5.2: an RRset is cached by its lowest TTL); nil
    /// for a negative answer.
    public var smallestTTL: UInt32? {
        guard case .addresses(let answered) = self else { return nil }
        return answered.map(\.ttl).min()
    }

    public var description: String {
        switch self {
        case .addresses(let answered): return answered.map(\.description).joined(separator: ", ")
        case .nameDoesNotExist: return "no such name"
        case .noAddresses: return "no address"
        }
    }

    /// `.addresses`, or `.noAddresses` when the list is empty.
    static func from(_ answered: [AnsweredAddress]) -> ProviderAnswer {
        answered.isEmpty ? .noAddresses : .addresses(answered)
    }
}

/// Which kind of address a provider is asked for; the cache keeps the families apart.
public enum AddressFamily: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// A records (RFC 1035 §3.4.1).
    case ipv4
    /// AAAA records (RFC 3596 §2.1).
    case ipv6

    /// The DNS RR TYPE value: 1 for A, 28 for AAAA.
    public var recordType: Int {
        switch self {
        case .ipv4: return 1
        case .ipv6: return 28
        }
    }

    /// The RR TYPE mnemonic, as the JSON APIs take it in `type=`.
    public var recordTypeName: String {
        switch self {
        case .ipv4: return "A"
        case .ipv6: return "AAAA"
        }
    }

    /// Whether `address` belongs to this family.
    public func contains(_ address: IPAddress) -> Bool {
        address.isIPv6 == (self == .ipv6)
    }

    public var description: String {
        switch self {
        case .ipv4: return "ipv4"
        case .ipv6: return "ipv6"
        }
    }
}

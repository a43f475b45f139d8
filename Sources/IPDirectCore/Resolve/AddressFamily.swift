/// The address family a lookup asks for: A records (IPv4) or AAAA records (IPv6).
///
/// The cache keeps the two apart because providers answer them separately
/// (`type=1` and `type=28`) with their own TTLs, and a name may have only one.
public enum AddressFamily: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A records, RFC 1035 §3.4.1.
    case v4
    /// AAAA records, RFC 3596 §2.1.
    case v6

    /// The family an address belongs to.
    public init(of address: IPAddress) {
        self = address.isIPv6 ? .v6 : .v4
    }

    /// The DNS RR TYPE value: 1 for A, 28 for AAAA.
    public var recordType: Int {
        switch self {
        case .v4: return 1
        case .v6: return 28
        }
    }

    /// The RR TYPE mnemonic, as the JSON APIs take it in `type=`.
    public var recordTypeName: String {
        switch self {
        case .v4: return "A"
        case .v6: return "AAAA"
        }
    }

    /// Whether `address` belongs to this family.
    public func contains(_ address: IPAddress) -> Bool {
        address.isIPv6 == (self == .v6)
    }

    public var description: String { rawValue }
}

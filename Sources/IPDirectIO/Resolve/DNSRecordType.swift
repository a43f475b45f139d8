/// The address record types an HTTPDNS lookup asks for.
public enum DNSRecordType: UInt16, Sendable, CaseIterable, CustomStringConvertible {
    /// An IPv4 host address (RFC 1035 §3.2.2).
    case a = 1
    /// An IPv6 host address (RFC 3596 §2.1).
    case aaaa = 28

    /// The only class ipdirect asks in: Internet (RFC 1035 §3.2.4). The `ns_c_in` name from
    /// arpa/nameser.h does not import into Swift, so the value is spelled here once.
    static let internetClass: UInt16 = 1

    public var description: String {
        switch self {
        case .a: return "A"
        case .aaaa: return "AAAA"
        }
    }
}

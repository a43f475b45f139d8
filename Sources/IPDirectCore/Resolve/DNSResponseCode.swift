/// The RCODE of a DNS response header (RFC 1035 §4.1.1; names from the IANA registry, RFC 6895 §2.3).
public struct DNSResponseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The query was answered; the answer section says with what.
    public static let noError = DNSResponseCode(rawValue: 0)
    /// The server could not read the query.
    public static let formatError = DNSResponseCode(rawValue: 1)
    /// The server failed to resolve, e.g. the authoritative servers did not answer or DNSSEC failed.
    public static let serverFailure = DNSResponseCode(rawValue: 2)
    /// The name does not exist (RFC 2308 §2.1): a negative answer, not an error.
    public static let nameError = DNSResponseCode(rawValue: 3)
    /// The server does not support this kind of query.
    public static let notImplemented = DNSResponseCode(rawValue: 4)
    /// The server will not answer us, by policy.
    public static let refused = DNSResponseCode(rawValue: 5)

    /// The registry's mnemonics for the codes a plain header can carry (4 bits; values above 15
    /// need EDNS(0), which ipdirect's queries do not use).
    private static let mnemonics: [UInt8: String] = [
        0: "NOERROR", 1: "FORMERR", 2: "SERVFAIL", 3: "NXDOMAIN", 4: "NOTIMP", 5: "REFUSED",
        6: "YXDOMAIN", 7: "YXRRSET", 8: "NXRRSET", 9: "NOTAUTH", 10: "NOTZONE", 11: "DSOTYPENI",
    ]

    public var description: String {
        Self.mnemonics[rawValue] ?? "RCODE\(rawValue)"
    }

    /// The mnemonic for an RCODE read as a plain number (the JSON APIs' `Status`).
    public static func name(of rcode: Int) -> String {
        guard let value = UInt8(exactly: rcode) else { return "RCODE\(rcode)" }
        return DNSResponseCode(rawValue: value).description
    }
}

/// Record types and classes the DNS listener names (IANA "Resource Record (RR) TYPEs").
public enum DNSType {
    public static let a: UInt16 = 1
    public static let ns: UInt16 = 2
    public static let cname: UInt16 = 5
    public static let soa: UInt16 = 6
    public static let ptr: UInt16 = 12
    public static let mx: UInt16 = 15
    public static let txt: UInt16 = 16
    public static let aaaa: UInt16 = 28
    public static let srv: UInt16 = 33
    /// The EDNS(0) pseudo-record (RFC 6891 §6.1.1).
    public static let opt: UInt16 = 41
    public static let svcb: UInt16 = 64
    public static let https: UInt16 = 65
    /// QTYPE * (RFC 1035 §3.2.3, RFC 8482).
    public static let any: UInt16 = 255

    /// The Internet class (RFC 1035 §3.2.4): the only one served.
    public static let internetClass: UInt16 = 1

    private static let names: [UInt16: String] = [
        a: "A", ns: "NS", cname: "CNAME", soa: "SOA", ptr: "PTR", mx: "MX", txt: "TXT", aaaa: "AAAA", srv: "SRV",
        opt: "OPT", svcb: "SVCB", https: "HTTPS", any: "ANY",
    ]

    /// `A`, `AAAA`, or `TYPE99` for a type without a name here (RFC 3597 §5).
    public static func name(_ type: UInt16) -> String {
        names[type] ?? "TYPE\(type)"
    }
}

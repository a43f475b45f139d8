/// One resource record of an answer (RFC 1035 §4.1.3), its data already in wire form.
public struct DNSRecord: Equatable, Sendable {
    public var owner: DNSName
    public var type: UInt16
    public var ttl: UInt32
    public var data: [UInt8]

    public init(owner: DNSName, type: UInt16, ttl: UInt32, data: [UInt8]) {
        self.owner = owner
        self.type = type
        self.ttl = ttl
        self.data = data
    }

    /// An A or AAAA record, whichever family `address` is.
    public static func address(_ address: IPAddress, owner: DNSName, ttl: UInt32) -> DNSRecord {
        DNSRecord(owner: owner, type: address.isIPv6 ? DNSType.aaaa : DNSType.a, ttl: ttl, data: address.bytes)
    }

    /// The SOA record a negative answer carries (RFC 2308 §3), made up for a name ipdirect answers
    /// itself: its MINIMUM and TTL are how long the negative answer may be cached (RFC 2308 §5).
    public static func negativeAnswerSOA(owner: DNSName, ttl: UInt32) -> DNSRecord {
        let serial: UInt32 = 1
        let refresh: UInt32 = 3_600, retry: UInt32 = 600, expire: UInt32 = 86_400
        var data = DNSName("ipdirect.invalid")!.wire + DNSName("hostmaster.invalid")!.wire
        for field in [serial, refresh, retry, expire, ttl] {
            data += [UInt8(field >> 24), UInt8(truncatingIfNeeded: field >> 16), UInt8(truncatingIfNeeded: field >> 8),
                     UInt8(truncatingIfNeeded: field)]
        }
        return DNSRecord(owner: owner, type: DNSType.soa, ttl: ttl, data: data)
    }

    /// Octets on the wire, its owner written in full.
    var wireSize: Int { owner.wire.count + 10 + data.count }
}

/// A response code with EDNS(0)'s extension (RFC 6891 §6.1.3): 12 bits, the low 4 in the header and the
/// high 8 in the OPT record.
public struct DNSExtendedResponseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public static let noError = DNSExtendedResponseCode(rawValue: 0)
    public static let formatError = DNSExtendedResponseCode(rawValue: 1)
    public static let serverFailure = DNSExtendedResponseCode(rawValue: 2)
    public static let nameError = DNSExtendedResponseCode(rawValue: 3)
    public static let notImplemented = DNSExtendedResponseCode(rawValue: 4)
    public static let refused = DNSExtendedResponseCode(rawValue: 5)
    /// The query's EDNS version is not one this server speaks (RFC 6891 §6.1.3); needs an OPT record.
    public static let badVersion = DNSExtendedResponseCode(rawValue: 16)

    public var description: String {
        rawValue == 16 ? "BADVERS" : DNSResponseCode(rawValue: UInt8(truncatingIfNeeded: rawValue)).description
    }
}

/// The question as the client sent it, echoed in the response (RFC 1035 §4.1.2).
public struct DNSQuestionEcho: Equatable, Sendable {
    public var name: DNSName
    public var type: UInt16
    public var dnsClass: UInt16
}

/// The OPT record of a response to a query that had one (RFC 6891 §7: never to one that had none).
public struct DNSResponseEDNS: Equatable, Sendable {
    /// The DO bit, copied from the query (RFC 3225 §3).
    public var dnssecOK: Bool
    /// The UDP payload size this server takes, advertised in the record's class field.
    public var udpPayloadSize = 1232
}

/// A response from the DNS listener: recursion available, never authoritative, never AD (it validates
/// nothing), records in the answer and authority sections only.
public struct DNSResponseMessage: Equatable, Sendable {
    public var id: UInt16
    public var opcode: UInt8 = 0
    public var recursionDesired: Bool
    public var checkingDisabled: Bool
    public var rcode = DNSExtendedResponseCode.noError
    public var question: DNSQuestionEcho?
    public var answers: [DNSRecord] = []
    public var authority: [DNSRecord] = []
    public var edns: DNSResponseEDNS?

    public init(id: UInt16, recursionDesired: Bool, checkingDisabled: Bool) {
        self.id = id
        self.recursionDesired = recursionDesired
        self.checkingDisabled = checkingDisabled
    }

    /// The most a message can be over TCP, where its length travels in 16 bits (RFC 1035 §4.2.2).
    public static let maximumTCPSize = 65_535
    /// A pointer to the question's name, which follows the 12-octet header (RFC 1035 §4.1.4).
    private static let questionNamePointer: [UInt8] = [0xC0, 0x0C]
    /// An OPT record without options: root owner, type, class, TTL, data length.
    private static let optRecordSize = 11

    /// The message in wire form, at most `limit` octets. Records that do not fit are left out whole, from
    /// the first that does not fit on, and TC is set (RFC 2181 §9), so a client asks again over TCP.
    public func encoded(limit: Int = maximumTCPSize) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        var truncated = false
        var body: [UInt8] = []
        if let question {
            body += question.name.wire
            Self.append16(question.type, to: &body)
            Self.append16(question.dnsClass, to: &body)
        }
        let reserved = DNSQueryMessage.headerSize + (edns == nil ? 0 : Self.optRecordSize)
        var counts = (answer: 0, authority: 0)
        for (section, records) in [(0, answers), (1, authority)] where !truncated {
            for record in records {
                let encoded = encode(record)
                guard reserved + body.count + encoded.count <= limit else {
                    truncated = true
                    break
                }
                body += encoded
                if section == 0 { counts.answer += 1 } else { counts.authority += 1 }
            }
        }
        Self.append16(id, to: &bytes)
        var flags: UInt16 = 0x8000 | UInt16(opcode & 0xF) << 11 | 0x0080
        if truncated { flags |= 0x0200 }
        if recursionDesired { flags |= 0x0100 }
        if checkingDisabled { flags |= 0x0010 }
        flags |= rcode.rawValue & 0xF
        Self.append16(flags, to: &bytes)
        Self.append16(question == nil ? 0 : 1, to: &bytes)
        Self.append16(UInt16(counts.answer), to: &bytes)
        Self.append16(UInt16(counts.authority), to: &bytes)
        Self.append16(edns == nil ? 0 : 1, to: &bytes)
        bytes += body
        if let edns {
            bytes.append(0)
            Self.append16(DNSType.opt, to: &bytes)
            Self.append16(UInt16(edns.udpPayloadSize), to: &bytes)
            bytes.append(UInt8(truncatingIfNeeded: rcode.rawValue >> 4))
            bytes.append(0)
            Self.append16(edns.dnssecOK ? 0x8000 : 0, to: &bytes)
            Self.append16(0, to: &bytes)
        }
        return bytes
    }

    /// Whether `encoded(limit:)` leaves records out.
    public func isTruncated(limit: Int) -> Bool {
        let bytes = encoded(limit: limit)
        return bytes.count >= 4 && bytes[2] & 0x02 != 0
    }

    private func encode(_ record: DNSRecord) -> [UInt8] {
        var bytes = record.owner == question?.name ? Self.questionNamePointer : record.owner.wire
        Self.append16(record.type, to: &bytes)
        Self.append16(DNSType.internetClass, to: &bytes)
        Self.append16(UInt16(record.ttl >> 16), to: &bytes)
        Self.append16(UInt16(truncatingIfNeeded: record.ttl), to: &bytes)
        Self.append16(UInt16(record.data.count), to: &bytes)
        return bytes + record.data
    }

    private static func append16(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }
}

/// A query's EDNS(0) OPT record (RFC 6891 §6.1.2), as far as an answer depends on it.
public struct DNSQueryEDNS: Equatable, Sendable {
    /// The largest UDP response the client takes; below 512 it counts as 512 (RFC 6891 §6.2.5).
    public var udpPayloadSize: Int
    public var version: UInt8
    /// The DO bit (RFC 3225): echoed in the answer, which still carries no DNSSEC records.
    public var dnssecOK: Bool
}

/// A query the listener will answer (RFC 1035 §4.1): one question in class IN, standard opcode.
public struct DNSQueryMessage: Equatable, Sendable {
    public var id: UInt16
    public var recursionDesired: Bool
    public var checkingDisabled: Bool
    public var name: DNSName
    public var type: UInt16
    public var edns: DNSQueryEDNS?
}

/// What becomes of a message that arrived at the DNS listener.
public enum DNSIntake: Equatable, Sendable {
    /// A query to answer.
    case query(DNSQueryMessage)
    /// Answered with an error code and no records: the response is ready to send.
    case reply(DNSResponseMessage, reason: String)
    /// Not answered at all: not a query, or not readable as a DNS message. On UDP a reply could go to a
    /// forged source address; on TCP the connection is closed, since framing can no longer be trusted.
    case drop(reason: String)
}

extension DNSQueryMessage {
    /// ID, flags and four counts of 16 bits (RFC 1035 §4.1.1).
    static let headerSize = 12
    private static let queryResponseBit: UInt16 = 0x8000
    private static let opcodeShift: UInt16 = 11
    private static let opcodeMask: UInt16 = 0xF
    private static let recursionDesiredBit: UInt16 = 0x0100
    private static let checkingDisabledBit: UInt16 = 0x0010
    /// The DO bit in the OPT record's TTL field (RFC 6891 §6.1.4).
    private static let dnssecOKBit: UInt32 = 0x8000
    /// RFC 6891 §6.2.5: a requestor's size below this is read as this.
    public static let minimumUDPPayload = 512
    static let standardQuery: UInt8 = 0

    /// Reads `bytes` as a query to this server, in the order RFC 1035, 6891 and 8906 give the checks.
    public static func intake(_ bytes: [UInt8]) -> DNSIntake {
        guard bytes.count >= headerSize else { return .drop(reason: "shorter than a DNS header") }
        var reader = DNSWireReader(bytes)
        do {
            let id = try reader.u16()
            let flags = try reader.u16()
            let counts = (question: try reader.u16(), answer: try reader.u16(), authority: try reader.u16(),
                          additional: try reader.u16())
            guard flags & queryResponseBit == 0 else { return .drop(reason: "a response (QR set), not a query") }
            var refusal = DNSResponseMessage(id: id, recursionDesired: flags & recursionDesiredBit != 0,
                                             checkingDisabled: flags & checkingDisabledBit != 0)
            let opcode = UInt8((flags >> opcodeShift) & opcodeMask)
            guard opcode == standardQuery else {
                refusal.opcode = opcode
                refusal.rcode = .notImplemented
                return .reply(refusal, reason: "opcode \(opcode) is not a standard query")
            }
            guard counts.question == 1 else {
                refusal.rcode = .formatError
                return .reply(refusal, reason: "\(counts.question) questions, not 1")
            }
            let name = try reader.name()
            let type = try reader.u16()
            let dnsClass = try reader.u16()
            refusal.question = DNSQuestionEcho(name: name, type: type, dnsClass: dnsClass)
            var edns: DNSQueryEDNS?
            let records = Int(counts.answer) + Int(counts.authority) + Int(counts.additional)
            for index in 0..<records {
                let record = try reader.recordHeader()
                try reader.skip(record.dataLength)
                guard record.type == DNSType.opt else { continue }
                // RFC 6891 §6.1.1: one OPT record, in the additional section, owned by the root.
                guard edns == nil, index >= Int(counts.answer) + Int(counts.authority), record.owner == .root else {
                    refusal.rcode = .formatError
                    return .reply(refusal, reason: "misplaced or repeated OPT record")
                }
                edns = DNSQueryEDNS(udpPayloadSize: max(Int(record.dnsClass), minimumUDPPayload),
                                    version: UInt8(truncatingIfNeeded: record.ttl >> 16),
                                    dnssecOK: record.ttl & dnssecOKBit != 0)
            }
            if let edns {
                refusal.edns = DNSResponseEDNS(dnssecOK: edns.dnssecOK)
                guard edns.version == 0 else {
                    refusal.rcode = .badVersion
                    return .reply(refusal, reason: "EDNS version \(edns.version)")
                }
            }
            guard dnsClass == DNSType.internetClass else {
                refusal.rcode = .refused
                return .reply(refusal, reason: "class \(dnsClass), not IN")
            }
            return .query(DNSQueryMessage(id: id, recursionDesired: flags & recursionDesiredBit != 0,
                                          checkingDisabled: flags & checkingDisabledBit != 0,
                                          name: name, type: type, edns: edns))
        } catch {
            return .drop(reason: "unreadable: \(error)")
        }
    }

    /// The response skeleton that answers this query: same ID, question and flags, EDNS if it had it.
    public func response(rcode: DNSExtendedResponseCode = .noError) -> DNSResponseMessage {
        var response = DNSResponseMessage(id: id, recursionDesired: recursionDesired, checkingDisabled: checkingDisabled)
        response.question = DNSQuestionEcho(name: name, type: type, dnsClass: DNSType.internetClass)
        response.edns = edns.map { DNSResponseEDNS(dnssecOK: $0.dnssecOK) }
        response.rcode = rcode
        return response
    }

    /// The UDP response limit for this query (RFC 6891 §6.2.5, DNS flag day 2020): the client's size, at
    /// least 512, at most `serverLimit`; 512 without EDNS (RFC 1035 §4.2.1).
    public func udpLimit(serverLimit: Int) -> Int {
        guard let edns else { return Self.minimumUDPPayload }
        return max(Self.minimumUDPPayload, min(edns.udpPayloadSize, serverLimit))
    }
}

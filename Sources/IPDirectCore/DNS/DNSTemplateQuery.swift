/// What an answer template depends on in a query, read in place: a standard query for one A or AAAA
/// question of class IN, the name in plain labels, and at most an EDNS(0) OPT record in the additional
/// section. Anything else (another type, a compression pointer, other records, EDNS version > 0) is not
/// read here and takes the full path through `DNSQueryMessage.intake`, which gives it its proper answer.
public struct DNSTemplateQuery: Equatable, Sendable {
    public var id: UInt16
    public var recursionDesired: Bool
    public var checkingDisabled: Bool
    public var type: UInt16
    /// The offset just past the question's class: the question is `bytes[12..<questionEnd]`.
    public var questionEnd: Int
    /// The query's OPT record, if it had one.
    public var edns: Bool
    public var dnssecOK: Bool
    /// The UDP payload size the OPT record offers; 512 without one (RFC 6891 §6.2.5).
    public var clientUDPPayload: Int
    /// What selects a template: the name without case, the type, EDNS and DO.
    public var key: DNSTemplateKey

    static let maximumNameLength = 255
    static let maximumLabelLength = 63
    static let questionNameOffset = DNSQueryMessage.headerSize

    /// Nil for anything but the plain shape above; never reads past `bytes`.
    public static func read(_ bytes: UnsafeRawBufferPointer) -> DNSTemplateQuery? {
        let count = bytes.count
        guard count >= questionNameOffset + 5 else { return nil }
        let flags = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        // QR clear and opcode QUERY; one question, nothing in answer and authority, at most one additional.
        guard flags & 0xF800 == 0, bytes[4] == 0, bytes[5] == 1, bytes[6] | bytes[7] | bytes[8] | bytes[9] == 0,
              bytes[10] == 0, bytes[11] <= 1 else { return nil }
        var offset = questionNameOffset
        while true {
            guard offset < count else { return nil }
            let length = Int(bytes[offset])
            // A compression pointer or a label type other than a plain label: the full path reads it.
            guard length <= maximumLabelLength else { return nil }
            offset += 1
            if length == 0 { break }
            guard offset + length < count, offset + length - questionNameOffset <= maximumNameLength else { return nil }
            offset += length
        }
        guard offset + 4 <= count else { return nil }
        let type = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        guard type == DNSType.a || type == DNSType.aaaa,
              bytes[offset + 2] == 0, UInt16(bytes[offset + 3]) == DNSType.internetClass else { return nil }
        let questionEnd = offset + 4
        var query = DNSTemplateQuery(id: UInt16(bytes[0]) << 8 | UInt16(bytes[1]), recursionDesired: flags & 0x0100 != 0,
                                     checkingDisabled: flags & 0x0010 != 0, type: type, questionEnd: questionEnd,
                                     edns: false, dnssecOK: false, clientUDPPayload: DNSQueryMessage.minimumUDPPayload,
                                     key: DNSTemplateKey(keyed: 0, plain: 0))
        if bytes[11] == 1 {
            // RFC 6891 §6.1.2: root owner, type OPT, class the payload size, TTL extended RCODE, version and
            // flags, then options, which the listener does not act on.
            let record = questionEnd
            guard record + 11 <= count, bytes[record] == 0,
                  UInt16(bytes[record + 1]) << 8 | UInt16(bytes[record + 2]) == DNSType.opt,
                  bytes[record + 6] == 0 else { return nil }
            let dataLength = Int(bytes[record + 9]) << 8 | Int(bytes[record + 10])
            guard record + 11 + dataLength <= count else { return nil }
            query.edns = true
            query.dnssecOK = bytes[record + 7] & 0x80 != 0
            query.clientUDPPayload = max(Int(bytes[record + 3]) << 8 | Int(bytes[record + 4]),
                                         DNSQueryMessage.minimumUDPPayload)
        }
        query.key = DNSTemplateKey(name: UnsafeRawBufferPointer(rebasing: bytes[questionNameOffset..<(questionEnd - 4)]),
                                   type: type, edns: query.edns, dnssecOK: query.dnssecOK)
        return query
    }

    /// The question's name as the query log writes it: lower case, dots between labels. Only for a query
    /// `read` accepted, whose bytes are `bytes`.
    public func hostName(_ bytes: UnsafeRawBufferPointer) -> String {
        let nameEnd = questionEnd - 5
        let start = Self.questionNameOffset + 1
        guard nameEnd > start else { return "" }
        return String(unsafeUninitializedCapacity: nameEnd - start) { text in
            var offset = Self.questionNameOffset
            var written = 0
            while offset < nameEnd {
                let length = Int(bytes[offset])
                if written > 0 {
                    text[written] = UInt8(ascii: ".")
                    written += 1
                }
                for index in (offset + 1)..<(offset + 1 + length) {
                    text[written] = DNSName.lowercased(bytes[index])
                    written += 1
                }
                offset += 1 + length
            }
            return written
        }
    }

    /// As `DNSQueryMessage.udpLimit(serverLimit:)`.
    public func udpLimit(serverLimit: Int) -> Int {
        edns ? max(DNSQueryMessage.minimumUDPPayload, min(clientUDPPayload, serverLimit)) : DNSQueryMessage.minimumUDPPayload
    }
}

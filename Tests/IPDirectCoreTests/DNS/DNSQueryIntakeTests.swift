import Testing
@testable import IPDirectCore

/// Messages as they arrive at the DNS listener, built octet by octet: what is answered, with which code,
/// and what is dropped unanswered.
@Suite struct DNSQueryIntakeTests {
    /// A query message: header, one question per name, then the given additional records.
    static func query(id: UInt16 = 0x1234, flags: UInt16 = 0x0100, questions: [[UInt8]] = [DNSName("www.Example.test")!.wire],
                      type: UInt16 = DNSType.a, dnsClass: UInt16 = DNSType.internetClass,
                      additional: [[UInt8]] = [], questionCount: UInt16? = nil) -> [UInt8] {
        var bytes = words(id, flags, questionCount ?? UInt16(questions.count), 0, 0, UInt16(additional.count))
        for name in questions { bytes += name + words(type, dnsClass) }
        for record in additional { bytes += record }
        return bytes
    }

    /// An OPT record (RFC 6891 §6.1.2) with `payload`, extended-RCODE 0, `version`, and the DO bit.
    static func opt(payload: UInt16 = 4096, version: UInt8 = 0, dnssecOK: Bool = false, owner: [UInt8] = [0]) -> [UInt8] {
        owner + words(DNSType.opt, payload) + [0, version] + words(dnssecOK ? 0x8000 : 0, 0)
    }

    static func words(_ values: UInt16...) -> [UInt8] {
        values.flatMap { [UInt8($0 >> 8), UInt8(truncatingIfNeeded: $0)] }
    }

    func replyCode(_ bytes: [UInt8]) -> DNSExtendedResponseCode? {
        guard case .reply(let response, _) = DNSQueryMessage.intake(bytes) else { return nil }
        return response.rcode
    }

    func isDropped(_ bytes: [UInt8]) -> Bool {
        if case .drop = DNSQueryMessage.intake(bytes) { return true }
        return false
    }

    @Test func aQueryWithEDNSIsReadWithItsNameTypeSizeAndDOBit() {
        let intake = DNSQueryMessage.intake(Self.query(type: DNSType.aaaa, additional: [Self.opt(payload: 1400, dnssecOK: true)]))
        guard case .query(let query) = intake else {
            Issue.record("not read as a query: \(intake)")
            return
        }
        #expect(query.id == 0x1234 && query.recursionDesired && query.type == DNSType.aaaa)
        #expect(query.name.hostName == "www.example.test")
        #expect(query.name.labels[1] == Array("Example".utf8))
        #expect(query.edns == DNSQueryEDNS(udpPayloadSize: 1400, version: 0, dnssecOK: true))
        #expect(query.udpLimit(serverLimit: 1232) == 1232)
    }

    @Test func udpLimitsFollowTheClientWithinBounds() {
        let table: [(DNSQueryEDNS?, Int)] = [
            (nil, 512),
            (DNSQueryEDNS(udpPayloadSize: 512, version: 0, dnssecOK: false), 512),
            (DNSQueryEDNS(udpPayloadSize: 900, version: 0, dnssecOK: false), 900),
            (DNSQueryEDNS(udpPayloadSize: 65_000, version: 0, dnssecOK: false), 1232),
        ]
        for (edns, limit) in table {
            let query = DNSQueryMessage(id: 1, recursionDesired: true, checkingDisabled: false, name: .root, type: 1, edns: edns)
            #expect(query.udpLimit(serverLimit: 1232) == limit)
        }
        guard case .query(let small) = DNSQueryMessage.intake(Self.query(additional: [Self.opt(payload: 100)])) else {
            Issue.record("not read as a query")
            return
        }
        #expect(small.udpLimit(serverLimit: 1232) == 512)
    }

    @Test func errorCodesForQueriesThatAreReadableButNotServed() {
        let table: [(String, [UInt8], DNSExtendedResponseCode)] = [
            ("opcode 2 (status)", Self.query(flags: 0x1100), .notImplemented),
            ("no question", Self.query(questions: []), .formatError),
            ("two questions", Self.query(questions: [DNSName("a.test")!.wire, DNSName("b.test")!.wire]), .formatError),
            ("class CH", Self.query(dnsClass: 3), .refused),
            ("EDNS version 1", Self.query(additional: [Self.opt(version: 1)]), .badVersion),
            ("two OPT records", Self.query(additional: [Self.opt(), Self.opt()]), .formatError),
            ("OPT owned by a name", Self.query(additional: [Self.opt(owner: DNSName("x.test")!.wire)]), .formatError),
        ]
        for (label, bytes, code) in table {
            #expect(replyCode(bytes) == code, "\(label)")
        }
    }

    @Test func badVersionIsAnsweredWithAnOPTRecordCarryingTheExtendedCode() {
        guard case .reply(let response, _) = DNSQueryMessage.intake(Self.query(additional: [Self.opt(version: 1)])) else {
            Issue.record("not answered")
            return
        }
        let bytes = response.encoded()
        // Header RCODE 0, OPT's extended RCODE 1: 1 << 4 | 0 = 16 (RFC 6891 §6.1.3).
        #expect(bytes[3] & 0x0F == 0)
        #expect(bytes[bytes.count - 6] == 1)
        #expect(bytes[11] == 1)
    }

    @Test func messagesThatCannotBeTrustedAreDropped() {
        var loop = Self.words(1, 0x0100, 1, 0, 0, 0)
        loop += [0xC0, 12] + Self.words(1, 1)
        var forward = Self.words(1, 0x0100, 1, 0, 0, 0)
        forward += [0xC0, 20] + Self.words(1, 1) + [0, 0, 0, 0]
        let longLabel = [UInt8(64)] + [UInt8](repeating: 0x61, count: 64) + [0]
        let longLabelRun: [UInt8] = [63] + [UInt8](repeating: 0x61, count: 63)
        let longName: [UInt8] = longLabelRun + longLabelRun + longLabelRun + longLabelRun + [0]
        let table: [(String, [UInt8])] = [
            ("empty", []),
            ("eleven octets", Array(Self.query().prefix(11))),
            ("a response", Self.query(flags: 0x8100)),
            ("question cut short", Array(Self.query().dropLast(3))),
            ("pointer to itself", loop),
            ("pointer forwards", forward),
            ("label of 64 octets", Self.query(questions: [longLabel])),
            ("name of 257 octets", Self.query(questions: [longName])),
        ]
        for (label, bytes) in table {
            #expect(isDropped(bytes), "\(label)")
        }
        var counted = Self.query()
        counted[11] = 1
        #expect(isDropped(counted), "an additional record announced but absent")
    }

    @Test func aNameOf255OctetsIsRead() {
        let labels = Array(repeating: [UInt8](repeating: 0x61, count: 63), count: 3) + [[UInt8](repeating: 0x62, count: 61)]
        let name = DNSName(labels: labels)
        #expect(name.wire.count == 255)
        guard case .query(let query) = DNSQueryMessage.intake(Self.query(questions: [name.wire])) else {
            Issue.record("a 255-octet name was refused")
            return
        }
        #expect(query.name == name)
    }

    @Test func hostNamesAreLowerCaseAndRefuseOctetsNoHostNameHas() {
        #expect(DNSName("WWW.Example.TEST.")?.hostName == "www.example.test")
        #expect(DNSName(labels: [Array("a.b".utf8), Array("test".utf8)]).hostName == nil)
        #expect(DNSName(labels: [[0x61, 0x00], Array("test".utf8)]).hostName == nil)
        #expect(DNSName(labels: [[0x61, 0x00], Array("test".utf8)]).description == "a\\000.test.")
        #expect(DNSName.root.description == ".")
    }

    @Test func theQueryLogShowsANameNoHostHasAsDigPrintsIt() {
        #expect(DNSName("WWW.Example.TEST.")?.displayName == "www.example.test")
        #expect(DNSName("<IMG src=x onerror=alert(1)>.test")?.displayName == "<img\\032src=x\\032onerror=alert(1)>.test")
        #expect(DNSName(labels: [Array("a.b".utf8), Array("test".utf8)]).displayName == "a\\.b.test")
    }
}

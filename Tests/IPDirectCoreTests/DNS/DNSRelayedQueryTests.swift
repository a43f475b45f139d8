import Testing
@testable import IPDirectCore

/// A query relayed upstream under ipdirect's own ID, and the upstream reply turned back into the client's
/// answer: the client's ID, flags and question case, names expanded, DNSSEC records only with DO.
@Suite struct DNSRelayedQueryTests {
    static func query(_ name: String = "Mail.Example.COM", type: UInt16 = DNSType.mx, dnssecOK: Bool? = nil,
                      checkingDisabled: Bool = false) -> DNSQueryMessage {
        DNSQueryMessage(id: 0x1234, recursionDesired: true, checkingDisabled: checkingDisabled, name: DNSName(name)!,
                        type: type, edns: dnssecOK.map { DNSQueryEDNS(udpPayloadSize: 1232, version: 0, dnssecOK: $0) })
    }

    /// An upstream reply: header, the question (lower case, as a server may write it), then records as
    /// (section, type, RDATA), each owned by a pointer to the question's name.
    static func reply(id: UInt16 = 0xA5A5, flags: UInt16 = 0x8180, name: String = "mail.example.com", type: UInt16 = DNSType.mx,
                      records: [(section: Int, type: UInt16, data: [UInt8])] = []) -> [UInt8] {
        var bytes: [UInt8] = []
        func word(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }
        word(id)
        word(flags)
        word(1)
        for section in 0..<3 { word(UInt16(records.filter { $0.section == section }.count)) }
        bytes += DNSName(name)!.wire
        word(type)
        word(1)
        for record in records.sorted(by: { $0.section < $1.section }) {
            bytes += [0xC0, 0x0C]
            word(record.type)
            word(1)
            bytes += [0, 0, 0x0E, 0x10]
            word(UInt16(record.data.count))
            bytes += record.data
        }
        return bytes
    }

    let relayed = DNSRelayedQuery(client: query(), upstreamID: 0xA5A5)

    @Test func theUpstreamQueryCarriesOurIDTheClientsQuestionAndDO() {
        let wire = DNSRelayedQuery(client: Self.query(dnssecOK: true, checkingDisabled: true), upstreamID: 0xA5A5).wire
        #expect(Array(wire[0..<4]) == [0xA5, 0xA5, 0x01, 0x10])   // our ID; RD and CD
        #expect(Array(wire[12..<(12 + DNSName("Mail.Example.COM")!.wire.count)]) == DNSName("Mail.Example.COM")!.wire)
        #expect(Array(wire.suffix(6)) == [0, 0, 0x80, 0, 0, 0])   // OPT: DO set, no options
    }

    @Test func aPaddedQueryEndsOnTheBlockWithTheQuestionUnchanged() {
        for name in ["a.example", "Mail.Example.COM", String(repeating: "x", count: 63) + ".example"] {
            let relayed = DNSRelayedQuery(client: Self.query(name), upstreamID: 0)
            let padded = relayed.wire(paddedTo: 128)
            #expect(padded.count % 128 == 0 && padded.count > relayed.wire.count, "\(name)")
            #expect(Array(padded[0..<(relayed.wire.count - 2)]) == Array(relayed.wire.dropLast(2)), "\(name)")
            // The intake reads it as a query with one OPT record whose RDLENGTH covers the padding option.
            guard case .query(let read) = DNSQueryMessage.intake(padded) else {
                Issue.record("the padded query is unreadable: \(name)")
                continue
            }
            #expect(read.name == DNSName(name)!, "\(name)")
        }
    }

    @Test func theAnswerGetsTheClientsIDFlagsAndQuestionCaseWithNamesInDataExpanded() {
        // MX 10 pointing at the question's name (compressed).
        guard case .response(let response, let dropped) = relayed.read(Self.reply(records: [(0, DNSType.mx, [0, 10, 0xC0, 0x0C])]), https: .stripHints) else {
            Issue.record("not read as a response")
            return
        }
        #expect(dropped == 0 && response.id == 0x1234 && response.recursionDesired)
        #expect(response.question?.name.labels == DNSName("Mail.Example.COM")!.labels)
        #expect(response.answers.map(\.data) == [[0, 10] + DNSName("mail.example.com")!.wire])
        #expect(response.answers.first?.ttl == 3600)
    }

    @Test func repliesThatAreNotForThisQueryAreIgnored() {
        let table: [[UInt8]] = [
            Self.reply(id: 0xA5A6),
            Self.reply(name: "other.example.com"),
            Self.reply(type: DNSType.txt),
            Self.reply(flags: 0x0100),        // a query, not a response
        ]
        for bytes in table {
            #expect(relayed.read(bytes, https: .stripHints) == .unrelated)
        }
    }

    @Test func aTruncatedReplyAsksForTCPAndGarbageForTheNextServer() {
        #expect(relayed.read(Self.reply(flags: 0x8380), https: .stripHints) == .truncated)
        guard case .unusable = relayed.read(Self.reply(records: [(0, DNSType.mx, [0, 10])]).dropLast(1).map { $0 }, https: .stripHints) else {
            Issue.record("a cut reply was used")
            return
        }
    }

    @Test func theUpstreamRcodeIsKept() {
        guard case .response(let response, _) = relayed.read(Self.reply(flags: 0x8183), https: .stripHints) else {
            Issue.record("not read")
            return
        }
        #expect(response.rcode == .nameError)
    }

    @Test func dnssecRecordsAndAdditionalRecordsReachOnlyClientsThatAskedForThem() {
        let records: [(section: Int, type: UInt16, data: [UInt8])] = [
            (0, DNSType.mx, [0, 10, 0]), (0, 46, [1, 2, 3]), (1, 47, [0, 0]), (2, DNSType.a, [192, 0, 2, 1]),
        ]
        let table: [(Bool?, [UInt16], Int)] = [(nil, [DNSType.mx], 3), (false, [DNSType.mx], 3), (true, [DNSType.mx, 46], 1)]
        for (dnssecOK, kept, droppedCount) in table {
            let relayed = DNSRelayedQuery(client: Self.query(dnssecOK: dnssecOK), upstreamID: 0xA5A5)
            guard case .response(let response, let dropped) = relayed.read(Self.reply(records: records), https: .stripHints) else {
                Issue.record("not read")
                continue
            }
            #expect(response.answers.map(\.type) == kept && dropped == droppedCount, "\(String(describing: dnssecOK))")
        }
    }

    @Test func httpsRecordsLoseTheirHintsOnlyWhenToldTo() {
        let withHints = SVCBHintStripperTests.rdata([SVCBHintStripperTests.alpn, SVCBHintStripperTests.v4Hint])
        let relayed = DNSRelayedQuery(client: Self.query("example.com", type: DNSType.https), upstreamID: 7)
        let reply = Self.reply(id: 7, name: "example.com", type: DNSType.https, records: [(0, DNSType.https, withHints), (0, DNSType.https, [0])])
        let table: [(DNSHTTPSRecords, [[UInt8]], Int)] = [
            (.stripHints, [SVCBHintStripperTests.rdata([SVCBHintStripperTests.alpn])], 1),
            (.forward, [withHints, [0]], 0),
        ]
        for (mode, data, droppedCount) in table {
            guard case .response(let response, let dropped) = relayed.read(reply, https: mode) else {
                Issue.record("not read")
                continue
            }
            #expect(response.answers.map(\.data) == data && dropped == droppedCount, "\(mode)")
        }
    }
}

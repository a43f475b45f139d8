import IPDirectCore
import Testing
@testable import IPDirectIO

@Suite struct DNSAnswerTests {
    typealias Builder = DNSMessageBuilder
    static let name = "www.example.com"
    static let question = Builder.Name.pointer(Builder.questionNameOffset)

    func parse(_ message: Builder, _ type: DNSRecordType = .a, asked: String = name) -> Result<DNSAnswer, DNSAnswerError> {
        DNSAnswer.parse(message.bytes, askedName: asked, type: type)
    }

    func addresses(_ texts: String...) -> [IPAddress] {
        texts.map { IPAddress($0)! }
    }

    @Test func readsARecordsWithTheSmallestTTL() {
        var message = Builder(question: Self.name, type: Builder.typeA)
        message.addAddress(owner: Self.question, "192.0.2.1", ttl: 300)
        message.addAddress(owner: .labels(Self.name), "192.0.2.2", ttl: 120)
        #expect(parse(message) == .success(.addresses(addresses("192.0.2.1", "192.0.2.2"), ttl: 120)))
    }

    @Test func readsAAAARecordsAndIgnoresAddressesOfTheOtherFamily() {
        var message = Builder(question: Self.name, type: Builder.typeAAAA)
        message.addAddress(owner: Self.question, "2001:db8::1", ttl: 60)
        message.addAddress(owner: Self.question, "192.0.2.1", ttl: 5)
        message.addAddress(owner: Self.question, "2001:db8::2", ttl: 90)
        #expect(parse(message, .aaaa) == .success(.addresses(addresses("2001:db8::1", "2001:db8::2"), ttl: 60)))
    }

    @Test func followsACNAMEChainWrittenWithCompressionPointersAndTakesTheSmallestTTL() {
        var message = Builder(question: Self.name, type: Builder.typeA)
        let cdn = message.addCNAME(owner: Self.question, target: .labels("cdn.example.net"), ttl: 30)
        let edge = message.addCNAME(owner: .pointer(cdn), target: .labelsThenPointer("edge", cdn), ttl: 600)
        message.addAddress(owner: .pointer(edge), "198.51.100.7", ttl: 300)
        message.addAddress(owner: .pointer(edge), "198.51.100.8", ttl: 250)
        #expect(parse(message) == .success(.addresses(addresses("198.51.100.7", "198.51.100.8"), ttl: 30)))
    }

    @Test func takesTheAddressTTLWhenItIsSmallerThanTheChains() {
        var message = Builder(question: Self.name, type: Builder.typeAAAA)
        let target = message.addCNAME(owner: Self.question, target: .labels("v6.example.net"), ttl: 3600)
        message.addAddress(owner: .pointer(target), "2001:db8::7", ttl: 45)
        #expect(parse(message, .aaaa) == .success(.addresses(addresses("2001:db8::7"), ttl: 45)))
    }

    @Test func ignoresAddressesOfNamesOutsideTheChain() {
        var message = Builder(question: Self.name, type: Builder.typeA)
        message.addAddress(owner: .labels("attacker.example"), "203.0.113.66", ttl: 86400)
        message.addAddress(owner: Self.question, "192.0.2.1", ttl: 100)
        #expect(parse(message) == .success(.addresses(addresses("192.0.2.1"), ttl: 100)))
    }

    @Test func readsATTLWithTheTopBitSetAsZero() {
        var message = Builder(question: Self.name, type: Builder.typeA)
        message.addAddress(owner: Self.question, "192.0.2.1", ttl: 0x8000_0001)
        #expect(parse(message) == .success(.addresses(addresses("192.0.2.1"), ttl: 0)))
    }

    @Test func nxdomainIsANegativeAnswer() {
        let message = Builder(question: Self.name, type: Builder.typeA, rcode: Builder.rcodeNXDomain)
        #expect(parse(message) == .success(.nameDoesNotExist))
    }

    @Test func noErrorWithoutRecordsIsNoData() {
        let message = Builder(question: Self.name, type: Builder.typeAAAA)
        #expect(parse(message, .aaaa) == .success(.noData))
    }

    @Test func aChainEndingWithoutAnAddressIsNoData() {
        var message = Builder(question: Self.name, type: Builder.typeAAAA)
        let target = message.addCNAME(owner: Self.question, target: .labels("v4only.example.net"), ttl: 60)
        message.addAddress(owner: .pointer(target), "192.0.2.9", ttl: 60)
        #expect(parse(message, .aaaa) == .success(.noData))
    }

    @Test(arguments: [(Builder.rcodeServFail, "SERVFAIL"), (Builder.rcodeRefused, "REFUSED"), (UInt8(1), "FORMERR"),
                      (UInt8(4), "NOTIMP"), (UInt8(15), "RCODE15")])
    func serverFailuresAreErrorsNamingTheResponseCode(rcode: UInt8, mnemonic: String) {
        var message = Builder(question: Self.name, type: Builder.typeA, rcode: rcode)
        // Addresses next to a failure code are not trusted.
        message.addAddress(owner: Self.question, "192.0.2.1", ttl: 300)
        let result = parse(message)
        #expect(result == .failure(.serverError(DNSResponseCode(rawValue: rcode))))
        if case .failure(let error) = result {
            #expect(error.description == "DNS server answered \(mnemonic)")
        }
    }

    @Test func aServerFailureWithoutAnEchoedQuestionStillNamesTheResponseCode() {
        let message = Builder(question: Self.name, type: Builder.typeA, rcode: Builder.rcodeServFail, questionCount: 0)
        #expect(parse(message) == .failure(.serverError(.serverFailure)))
    }

    @Test func answerForAnotherNameIsRefused() {
        var message = Builder(question: "www.example.org", type: Builder.typeA)
        message.addAddress(owner: Self.question, "192.0.2.1", ttl: 300)
        #expect(parse(message) == .failure(.questionMismatch(asked: "www.example.com A", answered: "www.example.org A")))
    }

    @Test func nxdomainForAnotherNameIsRefused() {
        let message = Builder(question: "other.example.com", type: Builder.typeA, rcode: Builder.rcodeNXDomain)
        #expect(parse(message) == .failure(.questionMismatch(asked: "www.example.com A", answered: "other.example.com A")))
    }

    @Test func answerForAnotherTypeIsRefused() {
        var message = Builder(question: Self.name, type: Builder.typeA)
        message.addAddress(owner: Self.question, "192.0.2.1", ttl: 300)
        #expect(parse(message, .aaaa) == .failure(.questionMismatch(asked: "www.example.com AAAA", answered: "www.example.com A")))
    }

    @Test func questionNamesCompareWithoutRegardToCaseOrTrailingDot() {
        var message = Builder(question: "WWW.Example.COM", type: Builder.typeA)
        message.addAddress(owner: Self.question, "192.0.2.1", ttl: 300)
        #expect(parse(message, asked: "www.EXAMPLE.com.") == .success(.addresses(addresses("192.0.2.1"), ttl: 300)))
    }

    @Test func parsesTheAnswerToABuiltQuery() throws {
        let query = try DNSQuery(name: "WWW.example.com", type: .a)
        var message = Builder(question: Self.name, type: Builder.typeA)
        message.addAddress(owner: Self.question, "192.0.2.1", ttl: 300)
        #expect(DNSAnswer.parse(message.bytes, for: query) == .success(.addresses(addresses("192.0.2.1"), ttl: 300)))
    }

    @Test func keepsAtMostSixtyFourAddresses() {
        var message = Builder(question: Self.name, type: Builder.typeA)
        for index in 0..<100 {
            message.addAddress(owner: Self.question, "10.0.\(index / 256).\(index % 256)", ttl: UInt32(1000 - index))
        }
        guard case .success(.addresses(let kept, let ttl)) = parse(message) else {
            Issue.record("expected addresses")
            return
        }
        #expect(kept.count == DNSAnswer.maximumAddresses)
        #expect(kept.first == IPAddress("10.0.0.0"))
        #expect(ttl == 1000 - UInt32(DNSAnswer.maximumAddresses - 1))
    }

    @Test func refusesMessagesLargerThanADNSMessageCanBe() {
        var message = Builder(question: Self.name, type: Builder.typeA)
        message.addAddress(owner: Self.question, "192.0.2.1", ttl: 300)
        let oversized = message.bytes + [UInt8](repeating: 0, count: DNSAnswer.maximumMessageSize)
        #expect(DNSAnswer.parse(oversized, askedName: Self.name, type: .a) == .failure(.tooLarge(oversized.count)))
    }

    @Test func refusesQueriesTruncatedResponsesAndOtherOpcodes() {
        let query = Builder(question: Self.name, type: Builder.typeA, isResponse: false)
        #expect(parse(query) == .failure(.malformed("the QR bit is clear, so it is a query")))
        var truncated = Builder(question: Self.name, type: Builder.typeA, truncated: true)
        truncated.addAddress(owner: Self.question, "192.0.2.1", ttl: 300)
        #expect(parse(truncated) == .failure(.truncated))
        var notify = Builder(question: Self.name, type: Builder.typeA).bytes
        notify[2] |= 4 << 3  // OPCODE 4, NOTIFY (RFC 1996)
        #expect(DNSAnswer.parse(notify, askedName: Self.name, type: .a) == .failure(.malformed("opcode 4, not a standard query")))
    }

    @Test func refusesMessagesWithoutExactlyOneQuestion() {
        #expect(parse(Builder(question: Self.name, type: Builder.typeA, questionCount: 0))
            == .failure(.malformed("0 questions, expected 1")))
        var two = Builder(question: Self.name, type: Builder.typeA).bytes
        two[5] = 2
        #expect(DNSAnswer.parse(two, askedName: Self.name, type: .a) == .failure(.malformed("2 questions, expected 1")))
    }

    @Test func everyCutOfAValidMessageIsMalformedNeverACrash() {
        var message = Builder(question: Self.name, type: Builder.typeA)
        let target = message.addCNAME(owner: Self.question, target: .labels("cdn.example.net"), ttl: 30)
        message.addAddress(owner: .pointer(target), "192.0.2.1", ttl: 300)
        let whole = message.bytes
        for length in 0..<whole.count {
            let result = DNSAnswer.parse(Array(whole.prefix(length)), askedName: Self.name, type: .a)
            guard case .failure(.malformed) = result else {
                Issue.record("a cut at \(length) of \(whole.count) bytes gave \(result)")
                continue
            }
        }
        #expect(DNSAnswer.parse(whole, askedName: Self.name, type: .a) == .success(.addresses(addresses("192.0.2.1"), ttl: 30)))
    }

    /// c-ares skips an A record whose RDATA is not 4 bytes (RFC 1035 §3.4.1) rather than failing the
    /// message; such a record is never turned into an address.
    @Test func skipsAnAddressRecordOfTheWrongLength() {
        var alone = Builder(question: Self.name, type: Builder.typeA)
        alone.addRecord(owner: Self.question, type: Builder.typeA, ttl: 300, data: [192, 0, 2])
        #expect(parse(alone) == .success(.noData))
        var beside = Builder(question: Self.name, type: Builder.typeA)
        beside.addRecord(owner: Self.question, type: Builder.typeA, ttl: 5, data: [192, 0, 2, 1, 7])
        beside.addAddress(owner: Self.question, "192.0.2.1", ttl: 300)
        #expect(parse(beside) == .success(.addresses(addresses("192.0.2.1"), ttl: 300)))
    }

    @Test func refusesACompressionPointerLoopInTheQuestion() {
        var looping = Builder(question: Self.name, type: Builder.typeA).bytes
        looping.replaceSubrange(12..<14, with: [0xC0, 0x0C])  // the name points at itself
        guard case .failure(.malformed) = DNSAnswer.parse(looping, askedName: Self.name, type: .a) else {
            Issue.record("a self-referencing name was accepted")
            return
        }
    }

    @Test(arguments: [[UInt8](), [UInt8](repeating: 0xFF, count: 11), [UInt8](repeating: 0xFF, count: 64),
                      Array("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>".utf8),
                      (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ 13) }])
    func garbageIsAnErrorNeverACrash(bytes: [UInt8]) {
        guard case .failure = DNSAnswer.parse(bytes, askedName: Self.name, type: .a) else {
            Issue.record("garbage was read as an answer")
            return
        }
    }

    @Test func describesAnswersForLogs() {
        #expect(DNSAnswer.addresses(addresses("192.0.2.1", "2001:db8::1"), ttl: 60).description == "192.0.2.1,2001:db8::1 ttl=60")
        #expect(DNSAnswer.nameDoesNotExist.description == "NXDOMAIN")
        #expect(DNSAnswer.noData.description == "no data")
        #expect(DNSAnswerError.questionMismatch(asked: "a.test A", answered: "b.test A").description
            == "DNS response is for 'b.test A', not the 'a.test A' asked")
    }
}

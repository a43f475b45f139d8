import Testing
@testable import IPDirectCore

/// Responses in wire form: the header's flags, the question echoed as asked, OPT only for EDNS queries,
/// and truncation that drops whole records and sets TC.
@Suite struct DNSResponseEncodingTests {
    let name = DNSName("Many.Example.test")!

    func query(edns: DNSQueryEDNS? = nil) -> DNSQueryMessage {
        DNSQueryMessage(id: 0xBEEF, recursionDesired: true, checkingDisabled: false, name: name, type: DNSType.a, edns: edns)
    }

    func addresses(_ count: Int) -> [DNSRecord] {
        (0..<count).map { DNSRecord.address(.v4(0xC633_6400 + UInt32($0)), owner: name, ttl: 60) }
    }

    /// Reads the four section counts and the TC bit back.
    func summary(_ bytes: [UInt8]) -> (truncated: Bool, answers: Int, authority: Int, additional: Int) {
        func word(_ offset: Int) -> Int { Int(bytes[offset]) << 8 | Int(bytes[offset + 1]) }
        return (bytes[2] & 0x02 != 0, word(6), word(8), word(10))
    }

    @Test func theHeaderSaysResponseRecursionAvailableNotAuthoritativeNotAuthenticated() {
        var response = query().response()
        response.answers = addresses(1)
        let bytes = response.encoded()
        #expect(bytes[0] == 0xBE && bytes[1] == 0xEF)
        #expect(bytes[2] == 0x81)   // QR, RD
        #expect(bytes[3] == 0x80)   // RA; AD and RCODE clear
        #expect(Array(bytes[12..<(12 + name.wire.count)]) == name.wire)
    }

    @Test func anOPTRecordIsSentOnlyWhenTheQueryHadOne() {
        #expect(summary(query().response().encoded()).additional == 0)
        let withEDNS = query(edns: DNSQueryEDNS(udpPayloadSize: 4096, version: 0, dnssecOK: true)).response().encoded()
        #expect(summary(withEDNS).additional == 1)
        // The DO bit is echoed in the OPT TTL field.
        #expect(withEDNS[withEDNS.count - 4] == 0x80)
    }

    @Test func fortyAddressesAt512OctetsAreTruncatedToWholeRecordsWithTC() {
        var response = query().response()
        response.answers = addresses(40)
        let small = response.encoded(limit: 512)
        let counts = summary(small)
        #expect(counts.truncated)
        #expect(small.count <= 512)
        #expect(counts.answers == (512 - 12 - name.wire.count - 4) / 16)
        let whole = response.encoded()
        #expect(!summary(whole).truncated && summary(whole).answers == 40)
        #expect(whole.count == 12 + name.wire.count + 4 + 40 * 16)
    }

    @Test func aRecordOwnedByTheQuestionNamePointsToIt() {
        var response = query().response()
        response.answers = addresses(1)
        let bytes = response.encoded()
        let recordStart = 12 + name.wire.count + 4
        #expect(bytes[recordStart] == 0xC0 && bytes[recordStart + 1] == 0x0C)
    }

    @Test func aNegativeAnswerCarriesTheSOAInTheAuthoritySection() {
        var response = query().response(rcode: .nameError)
        response.authority = [.negativeAnswerSOA(owner: name, ttl: 30)]
        let bytes = response.encoded()
        #expect(bytes[3] & 0x0F == 3)
        #expect(summary(bytes).authority == 1 && summary(bytes).answers == 0)
        // The SOA's MINIMUM, its last field, is the negative TTL.
        #expect(Array(bytes.suffix(4)) == [0, 0, 0, 30])
    }
}

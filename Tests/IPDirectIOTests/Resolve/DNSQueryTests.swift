import Testing
import IPDirectCore
@testable import IPDirectIO

@Suite struct DNSQueryTests {
    /// RFC 8484 §4.1.1's example: www.example.com A, ID 0, RD set, no EDNS.
    static let wwwExampleComA: [UInt8] = [
        0x00, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x03, 0x77, 0x77, 0x77, 0x07, 0x65, 0x78, 0x61, 0x6D, 0x70, 0x6C, 0x65, 0x03, 0x63, 0x6F, 0x6D, 0x00,
        0x00, 0x01, 0x00, 0x01,
    ]

    @Test func buildsTheRFC8484ExampleQueryForWwwExampleCom() throws {
        let query = try DNSQuery(name: "www.example.com", type: .a)
        #expect(query.bytes.count == 33)
        #expect(query.bytes == Self.wwwExampleComA)
        #expect(query.base64URL == "AAABAAABAAAAAAAAA3d3dwdleGFtcGxlA2NvbQAAAQAB")
    }

    @Test func endsWithAnOPTRecordCarryingTheClientSubnet() throws {
        let subnet = try #require(ClientSubnet("2001:db8:1234:5600::/56"))
        let query = try DNSQuery(name: "www.example.com", type: .a, clientSubnet: subnet)
        var expected = Self.wwwExampleComA
        expected[11] = 1
        // OPT: root, TYPE 41, CLASS 1232, TTL 0, RDLENGTH 15, ECS (code 8, length 11, family 2, /56, scope 0, 7 bytes).
        expected += [0x00, 0x00, 0x29, 0x04, 0xD0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0F,
                     0x00, 0x08, 0x00, 0x0B, 0x00, 0x02, 0x38, 0x00, 0x20, 0x01, 0x0D, 0xB8, 0x12, 0x34, 0x56]
        #expect(query.bytes == expected)
    }

    @Test(arguments: ["a.io", "www.example.com", String(repeating: "long-label.", count: 11) + "example"])
    func padsAQueryForDNSOverTLSToA128OctetBlock(name: String) throws {
        let query = try DNSQuery(name: name, type: .a, paddedTo: 128)
        #expect(query.bytes.count % 128 == 0)
        #expect(query.bytes[11] == 1, "one additional record: the OPT")
        let unpadded = try DNSQuery(name: name, type: .a)
        #expect(query.bytes.prefix(10) == unpadded.bytes.prefix(10))
        #expect(query.bytes[12..<unpadded.bytes.count] == unpadded.bytes[12...])
        // OPT: root, TYPE 41, CLASS 1232, TTL 0, RDLENGTH, then the Padding option (code 12) of zeros.
        let opt = query.bytes[unpadded.bytes.count...]
        #expect(Array(opt.prefix(9)) == [0x00, 0x00, 0x29, 0x04, 0xD0, 0x00, 0x00, 0x00, 0x00])
        #expect(Array(opt.dropFirst(11).prefix(2)) == [0x00, 0x0C])
        #expect(opt.dropFirst(15).allSatisfy { $0 == 0 })
    }

    @Test func asksForAAAAWithTypeTwentyEight() throws {
        let query = try DNSQuery(name: "www.example.com", type: .aaaa)
        #expect(query.bytes.prefix(29) == Self.wwwExampleComA.prefix(29))
        #expect(query.bytes.suffix(4) == [0x00, 0x1C, 0x00, 0x01])
        #expect(query.base64URL == "AAABAAABAAAAAAAAA3d3dwdleGFtcGxlA2NvbQAAHAAB")
    }

    @Test func normalisesCaseAndTrailingDot() throws {
        let query = try DNSQuery(name: "WWW.Example.COM.", type: .a)
        #expect(query.name == "www.example.com")
        #expect(query.bytes == Self.wwwExampleComA)
        #expect(query.description == "www.example.com A")
    }

    @Test(arguments: ["", ".", "a..b", "exa\\.mple.com", String(repeating: "a", count: 64) + ".com",
                      Array(repeating: "abcdefghi", count: 26).joined(separator: ".")])
    func refusesNamesThatAreNotHostNames(name: String) {
        #expect(throws: DNSQueryError.self) { try DNSQuery(name: name, type: .a) }
    }

    @Test func acceptsALabelOfSixtyThreeOctets() throws {
        let label = String(repeating: "a", count: 63)
        let query = try DNSQuery(name: label + ".com", type: .a)
        #expect(query.bytes[12] == 63)
    }

    @Test(arguments: [
        ([], ""), ([0x66], "Zg"), ([0x66, 0x6F], "Zm8"), ([0x66, 0x6F, 0x6F], "Zm9v"),
        ([0xFB, 0xFF, 0xBF], "-_-_"), ([0xFF, 0xFF, 0xFF, 0xFE], "_____g"),
    ] as [([UInt8], String)])
    func encodesBase64URLWithoutPadding(bytes: [UInt8], expected: String) {
        #expect(Base64URL.encode(bytes) == expected)
    }
}

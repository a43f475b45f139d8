import Testing
@testable import IPDirectCore

/// `client_subnet`: parsing, and the RFC 7871 §6 option and RFC 6891 §6.1 OPT record byte for byte.
/// Addresses are documentation ranges (RFC 5737, RFC 3849).
@Suite struct ClientSubnetTests {
    static func subnet(_ text: String) throws -> ClientSubnet {
        try #require(ClientSubnet(text))
    }

    @Test(arguments: [
        // OPTION-CODE 8, OPTION-LENGTH, FAMILY, SOURCE PREFIX-LENGTH, SCOPE 0, the address cut to the prefix.
        ("0.0.0.0/0", [0x00, 0x08, 0x00, 0x04, 0x00, 0x01, 0x00, 0x00]),
        ("203.0.113.0/24", [0x00, 0x08, 0x00, 0x07, 0x00, 0x01, 24, 0x00, 203, 0, 113]),
        ("198.51.100.128/25", [0x00, 0x08, 0x00, 0x08, 0x00, 0x01, 25, 0x00, 198, 51, 100, 128]),
        ("192.0.2.1/32", [0x00, 0x08, 0x00, 0x08, 0x00, 0x01, 32, 0x00, 192, 0, 2, 1]),
        ("::/0", [0x00, 0x08, 0x00, 0x04, 0x00, 0x02, 0x00, 0x00]),
        ("2001:db8:1234:5600::/56",
         [0x00, 0x08, 0x00, 0x0B, 0x00, 0x02, 56, 0x00, 0x20, 0x01, 0x0D, 0xB8, 0x12, 0x34, 0x56]),
        ("2001:db8:8000::/33",
         [0x00, 0x08, 0x00, 0x09, 0x00, 0x02, 33, 0x00, 0x20, 0x01, 0x0D, 0xB8, 0x80]),
    ] as [(String, [UInt8])])
    func encodesTheECSOptionWithTheAddressCutToThePrefix(text: String, option: [UInt8]) throws {
        #expect(try Self.subnet(text).ednsOption == option)
    }

    @Test(arguments: [
        ("203.0.113.7/24", "'203.0.113.7/24' has host bits set past /24; write the network, 203.0.113.0/24"),
        ("198.51.100.129/25", "'198.51.100.129/25' has host bits set past /25; write the network, 198.51.100.128/25"),
        ("2001:db8:1234:56ff::/56", "'2001:db8:1234:56ff::/56' has host bits set past /56; write the network, 2001:db8:1234:5600::/56"),
        ("203.0.113.0", "'203.0.113.0' has no prefix length; write a network such as 203.0.113.0/24 or 2001:db8::/56"),
        ("203.0.113.0/33", "'203.0.113.0/33': '33' is not a prefix length of an IPv4 address (0-32)"),
        ("2001:db8::/129", "'2001:db8::/129': '129' is not a prefix length of an IPv6 address (0-128)"),
        ("203.0.113.0/", "'203.0.113.0/': '' is not a prefix length of an IPv4 address (0-32)"),
        ("203.0.113.0/+8", "'203.0.113.0/+8': '+8' is not a prefix length of an IPv4 address (0-32)"),
        ("203.0.113.0/0024", "'203.0.113.0/0024': '0024' is not a prefix length of an IPv4 address (0-32)"),
        ("clients.example/24", "'clients.example/24': 'clients.example' is not an IP address"),
    ])
    func refusesWhatIsNotANetwork(text: String, message: String) {
        guard case .failure(let rejection) = ClientSubnet.parse(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(rejection.description == message)
    }

    @Test func describesItselfAsTheNetworkWritten() throws {
        #expect(try Self.subnet("203.0.113.0/24").description == "203.0.113.0/24")
        #expect(try Self.subnet("2001:db8:1234:5600::/56").description == "2001:db8:1234:5600::/56")
        #expect(try Self.subnet("198.51.100.128/25").address == IPAddress("198.51.100.128"))
    }

    @Test func appendsOneOPTRecordAndCountsItInARCOUNT() throws {
        // A query for example.com A (ID 0, RD), as c-ares writes it: header, question, nothing else.
        let query: [UInt8] = [0x00, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                              7] + Array("example".utf8) + [3] + Array("com".utf8) + [0, 0x00, 0x01, 0x00, 0x01]
        let option = try Self.subnet("203.0.113.0/24").ednsOption
        let message = try #require(EDNSRecord.appending(options: [option], to: query))
        #expect(Array(message.prefix(10)) == Array(query.prefix(10)))
        #expect(Array(message[10..<12]) == [0x00, 0x01])
        #expect(Array(message[12..<query.count]) == Array(query[12...]))
        // Root name, TYPE 41, CLASS 1232 (payload size), TTL 0 (no extended RCODE, version 0, DO clear),
        // RDLENGTH 11, then the option.
        #expect(Array(message[query.count...])
                == [0x00, 0x00, 0x29, 0x04, 0xD0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0B] + option)
    }

    @Test func refusesToAppendToLessThanAHeader() {
        #expect(EDNSRecord.appending(options: [], to: [0, 0, 1]) == nil)
        let full: [UInt8] = [0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0xFF, 0xFF]
        #expect(EDNSRecord.appending(options: [], to: full) == nil)
    }
}

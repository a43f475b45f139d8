import Testing
@testable import IPDirectCore

@Suite struct SOCKS5RequestTests {
    /// VER 5, CMD CONNECT, RSV 0, then ATYP.
    static let connect: [any SOCKSBytePart] = [5, 1, 0]

    static func domainRequest(_ name: String, port: UInt16 = 443) -> SOCKSBytes {
        SOCKSBytes(connect + [3, name.utf8.count, name, NetworkPort(port)])
    }

    @Test func readsAConnectToAnIPv4Address() {
        let request = SOCKSBytes(Self.connect + [1, [192, 0, 2, 1], NetworkPort(443)]).message(SOCKS5Request.parse)
        #expect(request == SOCKS5Request(command: .connect, address: .ip(IPAddress("192.0.2.1")!), port: 443))
        #expect(request?.description == "connect 192.0.2.1:443")
    }

    @Test func readsAnIPv6AddressIntact() {
        let address = IPAddress("2001:db8:85a3::8a2e:370:7334")!
        let input = SOCKSBytes(Self.connect + [4, address.bytes, NetworkPort(8443)])
        let request = input.message(SOCKS5Request.parse)
        #expect(request?.address == .ip(address))
        #expect(request?.address.description == "2001:db8:85a3::8a2e:370:7334")
        #expect(request?.description == "connect [2001:db8:85a3::8a2e:370:7334]:8443")
        let reply = SOCKS5Reply.bytes(.succeeded, bound: SocketAddress(ip: address, port: 8443))
        #expect(Array(reply[3...]) == Array(input.bytes[3...]))
    }

    @Test(arguments: [
        ([0x00, 0x01], 1),
        ([0x01, 0x00], 256),
        ([0x1F, 0x90], 8080),
        ([0x01, 0xBB], 443),
        ([0xFF, 0xFF], 65535),
    ] as [([UInt8], UInt16)])
    func readsThePortMostSignificantByteFirst(portBytes: [UInt8], port: UInt16) {
        let request = SOCKSBytes(Self.connect + [1, [127, 0, 0, 1], portBytes]).message(SOCKS5Request.parse)
        #expect(request?.port == port)
    }

    @Test func readsADomainNameLowerCased() {
        let request = Self.domainRequest("WWW.Example.TEST").message(SOCKS5Request.parse)
        #expect(request?.address == .domain("www.example.test"))
        #expect(request?.description == "connect www.example.test:443")
    }

    @Test(arguments: ["a", "x-1.example.test", "under_score.example.test", "example.test.", "xn--bcher-kva.test"])
    func acceptsHostNamesAnHTTPRequestMayName(_ name: String) {
        #expect(Self.domainRequest(name).message(SOCKS5Request.parse)?.address == .domain(name))
    }

    @Test func readsADottedQuadNameAsAnAddress() {
        let request = Self.domainRequest("192.0.2.1").message(SOCKS5Request.parse)
        #expect(request?.address == .ip(IPAddress("192.0.2.1")!))
    }

    @Test func acceptsTheLongestHostName() {
        let label = String(repeating: "a", count: 63)
        let longest = [label, label, label, String(repeating: "b", count: 61)].joined(separator: ".")
        #expect(longest.utf8.count == 253)
        #expect(Self.domainRequest(longest).message(SOCKS5Request.parse)?.address == .domain(longest))
        #expect(Self.domainRequest(longest + ".").message(SOCKS5Request.parse)?.address == .domain(longest + "."))
    }

    @Test(arguments: [
        (2, SOCKSCommand.bind),
        (3, .udpAssociate),
        (0, .other(0)),
        (4, .other(4)),
        (0xFF, .other(0xFF)),
    ] as [(Int, SOCKSCommand)])
    func keepsEveryCommandSoTheCallerCanAnswerIt(value: Int, command: SOCKSCommand) {
        let request = SOCKSBytes([5, value, 0, 1, [198, 51, 100, 7], NetworkPort(21)]).message(SOCKS5Request.parse)
        #expect(request?.command == command)
    }

    @Test func allowsPortZeroOnlyForUDPAssociate() {
        // RFC 1928 §7: a client that does not know where it will send from sends all zeros.
        let request = SOCKSBytes([5, 3, 0, 1, [0, 0, 0, 0], NetworkPort(0)]).message(SOCKS5Request.parse)
        #expect(request == SOCKS5Request(command: .udpAssociate, address: .ip(.v4(0)), port: 0))
    }

    @Test func leavesTheBytesAfterTheRequestToTheTunnel() {
        let requestThenData = SOCKSBytes(Self.connect + [3, 6, "a.test", NetworkPort(80), "GET / HTTP/1.1\r\n"])
        #expect(requestThenData.message(SOCKS5Request.parse, length: 13)?.address == .domain("a.test"))
    }

    @Test func fitsTheLargestRequestInItsMaximumLength() {
        let largest = SOCKSBytes(Self.connect + [3, 255, String(repeating: "a", count: 255), NetworkPort(80)])
        #expect(largest.bytes.count == SOCKS5Request.maximumLength)
        #expect(SOCKS5Request.maximumLength == 4 + 1 + 255 + 2)
    }

    @Test(arguments: [
        SOCKSBytes(connect + [1, [192, 0, 2, 1], NetworkPort(443)]),
        SOCKSBytes(connect + [4, IPAddress("2001:db8::1")!.bytes, NetworkPort(443)]),
        domainRequest("www.example.test"),
        domainRequest("192.0.2.1"),
    ])
    func asksForMoreOnEveryStrictPrefix(_ request: SOCKSBytes) {
        request.expectEveryStrictPrefixIncomplete(SOCKS5Request.parse)
    }

    static let rejections = [
        SOCKSRejection("version 4", because: "version 4", [4, 1, 0, 1, [127, 0, 0, 1], NetworkPort(80)]),
        SOCKSRejection("version 0", because: "version 0", [0]),
        SOCKSRejection("reserved byte 1", because: "reserved byte 1", [5, 1, 1, 1, [127, 0, 0, 1], NetworkPort(80)]),
        SOCKSRejection("reserved byte 255 before the rest", because: "reserved byte 255", [5, 1, 0xFF]),
        SOCKSRejection("address type 0", because: "address type 0 not supported", [5, 1, 0, 0]),
        SOCKSRejection("address type 2", because: "address type 2 not supported", [5, 1, 0, 2, [127, 0, 0, 1]]),
        SOCKSRejection("address type 5", because: "address type 5 not supported", [5, 1, 0, 5]),
        SOCKSRejection("address type 255", because: "address type 255 not supported", [5, 1, 0, 0xFF]),
        SOCKSRejection("port 0 for CONNECT", because: "port 0", [5, 1, 0, 1, [127, 0, 0, 1], NetworkPort(0)]),
        SOCKSRejection("port 0 for a name", because: "port 0", [5, 1, 0, 3, 6, "a.test", NetworkPort(0)]),
        SOCKSRejection("an empty name", because: "empty host name", [5, 1, 0, 3, 0, NetworkPort(80)]),
        SOCKSRejection("a space in a name", because: "host name byte 32 at offset 1", [5, 1, 0, 3, 7, "a .test", NetworkPort(80)]),
        SOCKSRejection("a space before the rest of the name", because: "host name byte 32", [5, 1, 0, 3, 200, "a b"]),
        SOCKSRejection("a control byte in a name", because: "host name byte 1", [5, 1, 0, 3, 3, [0x61, 0x01, 0x62], NetworkPort(80)]),
        SOCKSRejection("a NUL in a name", because: "host name byte 0", [5, 1, 0, 3, 7, "a.test", [0], NetworkPort(80)]),
        SOCKSRejection("a line break in a name", because: "host name byte 13 at offset 6", [5, 1, 0, 3, 8, "a.test\r\n", NetworkPort(80)]),
        SOCKSRejection("a port inside a name", because: "host name byte 58", [5, 1, 0, 3, 9, "a.test:22", NetworkPort(80)]),
        SOCKSRejection("a bracketed IPv6 literal", because: "host name byte 91", [5, 1, 0, 3, 5, "[::1]", NetworkPort(80)]),
        SOCKSRejection("a path in a name", because: "host name byte 47", [5, 1, 0, 3, 8, "a.test/x", NetworkPort(80)]),
        SOCKSRejection("UTF-8 in a name", because: "host name byte 195", [5, 1, 0, 3, 8, "bü.test", NetworkPort(80)]),
        SOCKSRejection("an empty label", because: "invalid host name", [5, 1, 0, 3, 7, "a..test", NetworkPort(80)]),
        SOCKSRejection("a leading dot", because: "invalid host name", [5, 1, 0, 3, 7, ".a.test", NetworkPort(80)]),
        SOCKSRejection("a lone dot", because: "invalid host name", [5, 1, 0, 3, 1, ".", NetworkPort(80)]),
        SOCKSRejection("a short numeric address", because: "invalid host name", [5, 1, 0, 3, 5, "127.1", NetworkPort(80)]),
        SOCKSRejection("a hex numeric address", because: "invalid host name", [5, 1, 0, 3, 10, "0x7f.0.0.1", NetworkPort(80)]),
        SOCKSRejection("a name of 254 characters", because: "invalid host name",
                       [5, 1, 0, 3, 254, [String](repeating: "abc.", count: 63).joined() + "ab", NetworkPort(80)]),
        SOCKSRejection("a name of 255 letters", because: "invalid host name",
                       [5, 1, 0, 3, 255, String(repeating: "a", count: 255), NetworkPort(80)]),
    ]

    @Test(arguments: rejections)
    func refuses(_ rejection: SOCKSRejection) {
        rejection.expectRefused(by: SOCKS5Request.parse)
    }

    @Test(arguments: [0, 2, 5, 0x7F, 0xFF])
    func tellsAnUnknownAddressTypeApartSoItCanBeAnswered(addressType: Int) {
        let request = SOCKSBytes([5, 1, 0, addressType, [127, 0, 0, 1], NetworkPort(80)])
        #expect(request.bytes.withUnsafeBytes(SOCKS5Request.unsupportedAddressType))
        #expect(SOCKSBytes([5, 1, 0, addressType]).bytes.withUnsafeBytes(SOCKS5Request.unsupportedAddressType))
        #expect(request.refusal(SOCKS5Request.parse) == "address type \(addressType) not supported")
    }

    @Test(arguments: [
        SOCKSBytes([5, 1, 0, 1, [127, 0, 0, 1], NetworkPort(80)]),
        SOCKSBytes([5, 1, 0, 3, 6, "a.test", NetworkPort(80)]),
        SOCKSBytes([5, 1, 0, 4]),
        SOCKSBytes([5, 1, 0]),
        SOCKSBytes([4, 1, 0, 2]),
        SOCKSBytes([5, 1, 1, 2]),
        SOCKSBytes([]),
    ])
    func doesNotCallOtherRequestsAnUnknownAddressType(_ request: SOCKSBytes) {
        #expect(!request.bytes.withUnsafeBytes(SOCKS5Request.unsupportedAddressType))
    }
}

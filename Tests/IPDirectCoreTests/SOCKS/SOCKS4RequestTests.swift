import Testing
@testable import IPDirectCore

@Suite struct SOCKS4RequestTests {
    /// DSTIP 0.0.0.1: "the name follows" in SOCKS4a.
    static let nameFollows: [UInt8] = [0, 0, 0, 1]

    @Test func readsAConnectWithAUserID() {
        let request = SOCKSBytes([4, 1, NetworkPort(80), [192, 0, 2, 1], "alice", 0]).message(SOCKS4Request.parse)
        #expect(request == SOCKS4Request(command: .connect, port: 80, address: .ip(IPAddress("192.0.2.1")!), userID: "alice"))
        #expect(request?.description == "connect 192.0.2.1:80 user \"alice\"")
    }

    @Test func readsAnEmptyUserID() {
        let request = SOCKSBytes([4, 1, NetworkPort(8080), [127, 0, 0, 1], 0]).message(SOCKS4Request.parse)
        #expect(request?.userID == "")
        #expect(request?.port == 8080)
        #expect(request?.description == "connect 127.0.0.1:8080")
    }

    @Test func readsASOCKS4aHostNameLowerCased() {
        let request = SOCKSBytes([4, 1, NetworkPort(443), Self.nameFollows, 0, "WWW.Example.TEST", 0])
            .message(SOCKS4Request.parse)
        #expect(request == SOCKS4Request(command: .connect, port: 443, address: .domain("www.example.test"), userID: ""))
    }

    @Test(arguments: [[0, 0, 0, 1], [0, 0, 0, 0xFF]] as [[UInt8]])
    func takesAnyAddressZeroZeroZeroXAsSOCKS4a(destination: [UInt8]) {
        let request = SOCKSBytes([4, 1, NetworkPort(80), destination, "bob", 0, "a.test", 0]).message(SOCKS4Request.parse)
        #expect(request?.address == .domain("a.test"))
        #expect(request?.userID == "bob")
    }

    @Test func readsZeroZeroZeroZeroAsAnAddressNotSOCKS4a() {
        let request = SOCKSBytes([4, 1, NetworkPort(80), [0, 0, 0, 0], 0]).message(SOCKS4Request.parse, length: 9)
        #expect(request?.address == .ip(.v4(0)))
    }

    @Test func readsADottedQuadNameAsAnAddress() {
        let request = SOCKSBytes([4, 1, NetworkPort(80), Self.nameFollows, 0, "198.51.100.9", 0]).message(SOCKS4Request.parse)
        #expect(request?.address == .ip(IPAddress("198.51.100.9")!))
    }

    @Test(arguments: [(1, SOCKSCommand.connect), (2, .bind), (3, .other(3)), (0, .other(0))] as [(Int, SOCKSCommand)])
    func keepsEveryCommandSoTheCallerCanAnswerIt(value: Int, command: SOCKSCommand) {
        let request = SOCKSBytes([4, value, NetworkPort(21), [198, 51, 100, 7], 0]).message(SOCKS4Request.parse)
        #expect(request?.command == command)
    }

    @Test func readsThePortMostSignificantByteFirst() {
        let request = SOCKSBytes([4, 1, [0x1F, 0x90], [127, 0, 0, 1], 0]).message(SOCKS4Request.parse)
        #expect(request?.port == 8080)
    }

    @Test func leavesTheBytesAfterTheRequestToTheTunnel() {
        let plain = SOCKSBytes([4, 1, NetworkPort(80), [127, 0, 0, 1], "u", 0, "GET /"])
        #expect(plain.message(SOCKS4Request.parse, length: 10)?.userID == "u")
        let named = SOCKSBytes([4, 1, NetworkPort(80), Self.nameFollows, 0, "a.test", 0, "GET /"])
        #expect(named.message(SOCKS4Request.parse, length: 16)?.address == .domain("a.test"))
    }

    @Test func acceptsAUserIDOfTwoHundredAndFiftyFiveBytes() {
        let userID = String(repeating: "u", count: 255)
        let request = SOCKSBytes([4, 1, NetworkPort(80), [127, 0, 0, 1], userID, 0]).message(SOCKS4Request.parse)
        #expect(request?.userID == userID)
    }

    @Test func fitsTheLargestRequestInItsMaximumLength() {
        let label = String(repeating: "a", count: 63)
        let longestName = [label, label, label, String(repeating: "b", count: 61)].joined(separator: ".") + "."
        let largest = SOCKSBytes([4, 1, NetworkPort(80), Self.nameFollows, String(repeating: "u", count: 255), 0,
                                  longestName, 0])
        #expect(largest.message(SOCKS4Request.parse)?.address == .domain(longestName))
        #expect(SOCKS4Request.maximumLength == 8 + 256 + 256)
        #expect(largest.bytes.count <= SOCKS4Request.maximumLength)
    }

    @Test func refusesAUserIDWithoutANULWithinTwoHundredAndFiftySixBytes() {
        let head: [any SOCKSBytePart] = [4, 1, NetworkPort(80), [127, 0, 0, 1]]
        #expect(SOCKSBytes(head + [String(repeating: "u", count: 255)]).parsed(SOCKS4Request.parse) == .incomplete)
        let reason = SOCKSBytes(head + [String(repeating: "u", count: 256)]).refusal(SOCKS4Request.parse)
        #expect(reason == "user id longer than 255 bytes")
    }

    @Test func refusesASOCKS4aNameWithoutANULWithinTwoHundredAndFiftySixBytes() {
        let head: [any SOCKSBytePart] = [4, 1, NetworkPort(80), Self.nameFollows, 0]
        #expect(SOCKSBytes(head + [String(repeating: "a", count: 255)]).parsed(SOCKS4Request.parse) == .incomplete)
        let reason = SOCKSBytes(head + [String(repeating: "a", count: 256)]).refusal(SOCKS4Request.parse)
        #expect(reason == "host name longer than 255 bytes")
    }

    @Test(arguments: [
        SOCKSBytes([4, 1, NetworkPort(80), [192, 0, 2, 1], 0]),
        SOCKSBytes([4, 2, NetworkPort(21), [192, 0, 2, 1], "alice", 0]),
        SOCKSBytes([4, 1, NetworkPort(443), nameFollows, 0, "www.example.test", 0]),
        SOCKSBytes([4, 1, NetworkPort(443), nameFollows, "bob", 0, "a.test", 0]),
    ])
    func asksForMoreOnEveryStrictPrefix(_ request: SOCKSBytes) {
        request.expectEveryStrictPrefixIncomplete(SOCKS4Request.parse)
    }

    static let rejections = [
        SOCKSRejection("a SOCKS5 greeting", because: "version 5", [5, 1, 0]),
        SOCKSRejection("version 0", because: "version 0", [0]),
        SOCKSRejection("port 0", because: "port 0", [4, 1, NetworkPort(0), [127, 0, 0, 1], 0]),
        SOCKSRejection("port 0 before the address", because: "port 0", [4, 1, 0, 0]),
        SOCKSRejection("a user id that is not UTF-8", because: "user id is not UTF-8",
                       [4, 1, NetworkPort(80), [127, 0, 0, 1], [0xC3, 0x28], 0]),
        SOCKSRejection("an empty SOCKS4a name", because: "empty host name", [4, 1, NetworkPort(80), nameFollows, 0, 0]),
        SOCKSRejection("a space in a SOCKS4a name", because: "host name byte 32 at offset 1",
                       [4, 1, NetworkPort(80), nameFollows, 0, "a b.test", 0]),
        SOCKSRejection("a space before the rest of the name", because: "host name byte 32",
                       [4, 1, NetworkPort(80), nameFollows, 0, "a "]),
        SOCKSRejection("a control byte in a SOCKS4a name", because: "host name byte 127",
                       [4, 1, NetworkPort(80), nameFollows, 0, "a", [0x7F], 0]),
        SOCKSRejection("UTF-8 in a SOCKS4a name", because: "host name byte 195",
                       [4, 1, NetworkPort(80), nameFollows, 0, "bü.test", 0]),
        SOCKSRejection("an empty label in a SOCKS4a name", because: "invalid host name",
                       [4, 1, NetworkPort(80), nameFollows, 0, "a..test", 0]),
        SOCKSRejection("a short numeric SOCKS4a name", because: "invalid host name",
                       [4, 1, NetworkPort(80), nameFollows, 0, "127.1", 0]),
        SOCKSRejection("a SOCKS4a name of 255 letters", because: "invalid host name",
                       [4, 1, NetworkPort(80), nameFollows, 0, String(repeating: "a", count: 255), 0]),
    ]

    @Test(arguments: rejections)
    func refuses(_ rejection: SOCKSRejection) {
        rejection.expectRefused(by: SOCKS4Request.parse)
    }

    @Test func repliesWithEightBytesGrantedOrRejected() {
        #expect(SOCKS4Request.reply(granted: true) == [0, 0x5A, 0, 0, 0, 0, 0, 0])
        #expect(SOCKS4Request.reply(granted: false) == [0, 0x5B, 0, 0, 0, 0, 0, 0])
    }
}

import Testing
@testable import IPDirectCore

/// The server name is read from a ClientHello however its bytes arrive, and nothing else passes for one.
@Suite struct ClientHelloReaderTests {
    static func read(_ bytes: [UInt8]) -> ClientHelloReader.Reading {
        bytes.withUnsafeBytes { ClientHelloReader.read($0) }
    }

    @Test func readsTheServerNameLowerCasedWithoutItsTrailingDot() {
        #expect(Self.read(ClientHelloBytes.make(serverName: "Origin.Test.")) == .serverName("origin.test"))
    }

    @Test func everyShorterPrefixIsIncompleteAndTheWholeHelloDecides() {
        let hello = ClientHelloBytes.make(serverName: "origin.test")
        for count in 1..<hello.count {
            #expect(Self.read(Array(hello[..<count])) == .incomplete, "after \(count) of \(hello.count) bytes")
        }
        #expect(Self.read(hello) == .serverName("origin.test"))
    }

    @Test func aHelloSplitOverSeveralRecordsIsJoined() {
        // A post-quantum key share makes a ClientHello of about 2 KB, sent in two records by some stacks.
        let message = ClientHelloBytes.handshake(serverName: "split.test", padding: 2_000)
        let bytes = ClientHelloBytes.records(message, fragment: 700)
        #expect(bytes.count > 2_000)
        #expect(Self.read(bytes) == .serverName("split.test"))
        #expect(Self.read(Array(bytes[..<1_000])) == .incomplete)
    }

    @Test func aPaddedHelloOfTwoAndAHalfKilobytesIsRead() {
        let bytes = ClientHelloBytes.make(serverName: "padded.test", padding: 2_400)
        #expect(bytes.count >= 2_500)
        #expect(Self.read(bytes) == .serverName("padded.test"))
    }

    @Test(arguments: [
        ClientHelloBytes.make(serverName: nil),
        ClientHelloBytes.make(serverName: nil, withExtensions: false),
        ClientHelloBytes.make(serverName: "192.0.2.7"),
        ClientHelloBytes.make(serverName: "not a name"),
        ClientHelloBytes.make(serverName: "origin.test", nameType: 7),
    ])
    func aHelloWithoutAUsableHostNameHasNoServerName(hello: [UInt8]) {
        #expect(Self.read(hello) == .noServerName)
    }

    @Test func bytesThatAreNotAHandshakeRecordAreNotAClientHello() {
        for bytes in [Array("GET / HTTP/1.1\r\n".utf8), [0x17, 0x03, 0x03, 0x00, 0x05], [0x16, 0x02, 0x00]] {
            guard case .notClientHello = Self.read(bytes) else {
                Issue.record("\(bytes) read as \(Self.read(bytes))")
                continue
            }
        }
    }

    @Test func aHandshakeOtherThanAClientHelloIsRefused() {
        var bytes = ClientHelloBytes.make(serverName: "origin.test")
        bytes[5] = 2  // ServerHello
        #expect(Self.read(bytes) == .notClientHello("handshake type 2"))
    }

    @Test func twoServerNameExtensionsAreRefused() {
        let name = Array("twice.test".utf8)
        let entry: [UInt8] = [0] + ClientHelloBytes.uint16(name.count) + name
        let list = ClientHelloBytes.uint16(entry.count) + entry
        let second: [UInt8] = [0x00, 0x00] + ClientHelloBytes.uint16(list.count) + list
        let bytes = ClientHelloBytes.make(serverName: "once.test", extraExtensions: second)
        #expect(Self.read(bytes) == .notClientHello("two server_name extensions"))
    }

    @Test func aHelloLongerThanTheLimitIsRefusedWithoutWaitingForIt() {
        let bytes = ClientHelloBytes.uint24(ClientHelloReader.maximumBytes)
        let header: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0x04, 0x01] + bytes
        guard case .notClientHello = Self.read(header) else {
            Issue.record("a \(ClientHelloReader.maximumBytes)-byte ClientHello read as \(Self.read(header))")
            return
        }
    }

    @Test func aRecordLongerThanTLSAllowsIsRefused() {
        #expect(Self.read([0x16, 0x03, 0x01, 0x40, 0x01]) == .notClientHello("record of 16385 bytes"))
    }
}

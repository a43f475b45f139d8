import Testing
@testable import IPDirectCore

/// A redirected connection's first bytes are told apart: TLS, HTTP, or anything else, which is never taken
/// for HTTP because it begins with a capital letter.
@Suite struct FirstBytesKindTests {
    static func kind(_ text: String) -> FirstBytesKind {
        Array(text.utf8).withUnsafeBytes { FirstBytesKind.of($0) }
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\n", FirstBytesKind.http),
        ("OPTIONS * HTTP/1.1\r\n", .http),
        ("GET http://a.test/ HTTP/1.1\r\n", .http),
        ("PROPFIND /dav HTTP/1.1\r\n", .http),
        ("SSH-2.0-OpenSSH_9.2\r\n", .other),
        ("EHLO mail.test\r\n", .other),
        ("HELLO WORLD", .other),
        ("get / HTTP/1.1", .other),
        ("\u{5}\u{1}\u{0}", .other),
        ("", .undecided),
        ("GE", .undecided),
        ("GET", .undecided),
        ("GET ", .undecided),
    ])
    func tellsTheKindOfTheFirstBytes(text: String, expected: FirstBytesKind) {
        #expect(Self.kind(text) == expected, "\(text.debugDescription)")
    }

    @Test func aHandshakeRecordIsTLSFromItsFirstByte() {
        #expect([UInt8(0x16)].withUnsafeBytes { FirstBytesKind.of($0) } == .tls)
    }

    @Test func aTokenLongerThanAnyMethodIsNotHTTP() {
        #expect(Self.kind(String(repeating: "A", count: 21)) == .other)
    }
}

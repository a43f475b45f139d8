import Testing
@testable import IPDirectCore

/// A Host value with the bytes of the absolute-form target's authority is not checked a second time; any other
/// value is, however little it differs from the authority.
extension RequestHeadParserTests {
    static let hostsDifferingFromTheTarget: [Rejection] = [
        Rejection("a short Host differing in its last byte", because: "invalid Host field: userinfo in authority",
                  "GET http://a.test/ HTTP/1.1\r\nHost: a.tes@\r\n\r\n"),
        Rejection("a short Host differing in its first byte", because: "invalid Host field: userinfo in authority",
                  "GET http://a.test/ HTTP/1.1\r\nHost: @.test\r\n\r\n"),
        Rejection("a Host of eight bytes differing in its last byte", because: "invalid Host field: invalid port",
                  "GET http://a.test:8/ HTTP/1.1\r\nHost: a.test:x\r\n\r\n"),
        Rejection("a Host of nine bytes differing in its last byte", because: "invalid Host field: invalid port",
                  "GET http://a.test:80/ HTTP/1.1\r\nHost: a.test:8x\r\n\r\n"),
        Rejection("a long Host differing in its first word", because: "invalid Host field: invalid host",
                  "GET http://abcdefghij.test/ HTTP/1.1\r\nHost: abcde ghij.test\r\n\r\n"),
        Rejection("a long Host differing in its last byte", because: "invalid Host field: invalid port",
                  "GET http://abcdefghij.test:80/ HTTP/1.1\r\nHost: abcdefghij.test:8x\r\n\r\n"),
        Rejection("a Host one byte longer than the authority", because: "invalid Host field: invalid port",
                  "GET http://a.test:80/ HTTP/1.1\r\nHost: a.test:80x\r\n\r\n"),
    ]
}

@Suite struct HostFieldCheckTests {
    @Test(arguments: ["a.test", "a.test:8080", "abcdefghij.test", "abcdefghij.test:65535", "[::1]:8080"])
    func acceptsAHostEqualToTheTargetAuthority(_ authority: String) {
        let head = RawHead("GET http://\(authority)/x HTTP/1.1\r\nHost: \(authority)\r\n\r\n").request()
        #expect(head?.fields.count == 1)
    }
}

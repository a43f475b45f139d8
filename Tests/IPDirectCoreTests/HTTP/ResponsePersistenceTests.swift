import Testing
@testable import IPDirectCore

@Suite struct ResponsePersistenceTests {
    /// One response to one request: what the client asked for, how the body is framed, and the answer.
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let version: HTTPVersion
        let keepAlive: Bool
        let framing: ResponseBodyFraming
        let mustClose: Bool
        let expected: ResponsePersistence

        init(_ label: String, _ version: HTTPVersion, keepAlive: Bool, _ framing: ResponseBodyFraming,
             mustClose: Bool = false, _ expected: ResponsePersistence)
        {
            self.label = label
            self.version = version
            self.keepAlive = keepAlive
            self.framing = framing
            self.mustClose = mustClose
            self.expected = expected
        }

        var testDescription: String { label }
    }

    @Test(arguments: [
        Case("1.1 with a length stays open silently", .http11, keepAlive: true, .contentLength(5), .persistent),
        Case("1.1 chunked stays open silently", .http11, keepAlive: true, .chunked, .persistent),
        Case("1.1 without a body stays open silently", .http11, keepAlive: true, .none, .persistent),
        Case("1.1 until close closes", .http11, keepAlive: true, .untilClose, .close),
        Case("1.1 asking for close closes", .http11, keepAlive: false, .contentLength(5), .close),
        Case("1.1 when the upstream closes", .http11, keepAlive: true, .contentLength(5), mustClose: true, .close),
        Case("1.0 keep-alive with a length says keep-alive", .http10, keepAlive: true, .contentLength(5), .keepAlive),
        Case("1.0 keep-alive with an empty length says keep-alive", .http10, keepAlive: true, .contentLength(0),
             .keepAlive),
        Case("1.0 keep-alive without a body (HEAD, 204, 304) says keep-alive", .http10, keepAlive: true, .none,
             .keepAlive),
        Case("1.0 keep-alive chunked closes: 1.0 cannot find its end", .http10, keepAlive: true, .chunked, .close),
        Case("1.0 keep-alive until close closes", .http10, keepAlive: true, .untilClose, .close),
        Case("1.0 without keep-alive closes", .http10, keepAlive: false, .contentLength(5), .close),
        Case("1.0 keep-alive when the request body was not read closes", .http10, keepAlive: true,
             .contentLength(5), mustClose: true, .close),
    ])
    func decidesFromVersionRequestAndFraming(_ row: Case) {
        let decided = ResponsePersistence(clientVersion: row.version, clientKeepAlive: row.keepAlive,
                                          framing: row.framing, mustClose: row.mustClose)
        #expect(decided == row.expected)
        #expect(decided.closes == (row.expected == .close))
    }

    @Test func proxyWrittenResponsesHaveALengthSoAnHTTP10ClientMayKeepTheConnection() {
        #expect(ResponsePersistence.lengthDelimited(clientVersion: .http10, clientKeepAlive: true, mustClose: false)
            == .keepAlive)
        #expect(ResponsePersistence.lengthDelimited(clientVersion: .http11, clientKeepAlive: true, mustClose: false)
            == .persistent)
        #expect(ResponsePersistence.lengthDelimited(clientVersion: .http10, clientKeepAlive: true, mustClose: true)
            == .close)
    }

    @Test func namesTheConnectionFieldItAdds() {
        #expect(ResponsePersistence.persistent.fieldLine == "")
        #expect(ResponsePersistence.keepAlive.fieldLine == "Connection: keep-alive\r\n")
        #expect(ResponsePersistence.close.fieldLine == "Connection: close\r\n")
        #expect("\(ResponsePersistence.keepAlive)" == "keep-alive")
    }
}

import Testing
@testable import IPDirectCore

@Suite struct ResponseHeadParserTests {
    // MARK: Rejections

    static let rejections: [Rejection] = [
        Rejection("Content-Length with Transfer-Encoding", because: "Content-Length and Transfer-Encoding together",
                  "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 502),
        Rejection("CL with TE on a 304", because: "Content-Length and Transfer-Encoding together",
                  "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 502),
        Rejection("two equal Content-Length fields", because: "multiple Content-Length values",
                  "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", 502),
        Rejection("a Content-Length list", because: "invalid Content-Length",
                  "HTTP/1.1 200 OK\r\nContent-Length: 5,5\r\n\r\n", 502),
        Rejection("a negative Content-Length", because: "invalid Content-Length",
                  "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 502),
        Rejection("an empty Content-Length", because: "empty Content-Length",
                  "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n", 502),
        Rejection("an overflowing Content-Length", because: "Content-Length too large",
                  "HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551616\r\n\r\n", 502),
        Rejection("chunked applied twice", because: "chunked applied more than once",
                  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", 502),
        Rejection("chunked before gzip", because: "chunked is not the final transfer coding",
                  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 502),
        Rejection("Transfer-Encoding on HTTP/1.0", because: "Transfer-Encoding in an HTTP/1.0 response",
                  "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 502),
        Rejection("a two digit status", because: "invalid status code", "HTTP/1.1 20 OK\r\n\r\n", 502),
        Rejection("a four digit status", because: "invalid status code", "HTTP/1.1 2000 OK\r\n\r\n", 502),
        Rejection("a status of class 6", because: "invalid status code", "HTTP/1.1 600 Odd\r\n\r\n", 502),
        Rejection("a status of class 0", because: "invalid status code", "HTTP/1.1 099 Odd\r\n\r\n", 502),
        Rejection("a non-digit status", because: "invalid status code", "HTTP/1.1 2x0 OK\r\n\r\n", 502),
        Rejection("a missing status", because: "invalid status", "HTTP/1.1\r\n\r\n", 502),
        Rejection("two spaces before the status", because: "invalid status code", "HTTP/1.1  200 OK\r\n\r\n", 502),
        Rejection("a tab before the status", because: "invalid status line", "HTTP/1.1\t200 OK\r\n\r\n", 502),
        Rejection("a lower-case version", because: "invalid status line", "http/1.1 200 OK\r\n\r\n", 502),
        Rejection("HTTP/2", because: "invalid status line", "HTTP/2 200 OK\r\n\r\n", 502),
        Rejection("HTTP/2.0", because: "unsupported HTTP version", "HTTP/2.0 200 OK\r\n\r\n", 502),
        Rejection("a control character in the reason", because: "control character in reason phrase",
                  "HTTP/1.1 200 O\u{01}K\r\n\r\n", 502),
        Rejection("an empty line before the status line", because: "invalid status line",
                  "\r\nHTTP/1.1 200 OK\r\n\r\n", 502),
        Rejection("a bare LF in the status line", because: "bare LF", "HTTP/1.1 200 OK\nServer: x\r\n\r\n", 502),
        Rejection("a bare CR in a field", because: "bare CR", "HTTP/1.1 200 OK\r\nServer: x\ry\r\n\r\n", 502),
        Rejection("an obs-fold continuation", because: "obs-fold",
                  "HTTP/1.1 200 OK\r\nServer: x\r\n y\r\n\r\n", 502),
        Rejection("whitespace before a colon", because: "whitespace between field name and colon",
                  "HTTP/1.1 200 OK\r\nServer : x\r\n\r\n", 502),
        Rejection("a NUL in a field value", because: "control character in field value",
                  bytes: Array("HTTP/1.1 200 OK\r\nX: a".utf8) + [0] + Array("\r\n\r\n".utf8), 502),
        Rejection("Connection naming Content-Length", because: "Connection names a framing field",
                  "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: Content-Length\r\n\r\n", 502),
        Rejection("a head over the size limit", because: "head too large",
                  "HTTP/1.1 200 OK\r\nX: \(String(repeating: "x", count: 40 * 1024))\r\n\r\n", 502),
        Rejection("more fields than the limit", because: "too many header fields",
                  "HTTP/1.1 200 OK\r\n" + String(repeating: "X: y\r\n", count: 129) + "\r\n", 502),
    ]

    @Test(arguments: rejections)
    func refusesWithBadGatewayAndReason(_ rejection: Rejection) {
        let result = rejection.head.parseResponse()
        guard case .invalid(let error) = result else {
            rejection.check(nil, got: result)
            return
        }
        rejection.check(error, got: result)
    }

    // MARK: Accepted responses

    @Test func parsesTheStatusLineAndFields() {
        let raw = RawHead("HTTP/1.1 404 Not  Found\t!\r\nServer: origin\r\nContent-Length: 3\r\n\r\nabc")
        guard let head = raw.response() else { return }
        #expect(head.status == 404)
        #expect(head.version == .http11)
        #expect(raw.text(head.reason) == "Not  Found\t!")
        #expect(raw.fieldTexts(head.fields) == ["Server: origin", "Content-Length: 3"])
        #expect(head.framing == .contentLength(3))
        #expect(head.keepAlive)
        #expect(head.headLength == raw.bytes.count - 3)
    }

    @Test(arguments: ["HTTP/1.1 204 \r\n\r\n", "HTTP/1.1 204\r\n\r\n"])
    func acceptsAnEmptyReasonWithOrWithoutItsSpace(text: String) {
        let raw = RawHead(text)
        guard let head = raw.response() else { return }
        #expect(head.status == 204)
        #expect(head.reason.isEmpty)
    }

    @Test(arguments: [
        (HTTPMethod.get, "HTTP/1.1 200 OK\r\nContent-Length: 10", ResponseBodyFraming.contentLength(10)),
        (.get, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked", .chunked),
        (.get, "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked", .chunked),
        (.get, "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip", .untilClose),
        (.get, "HTTP/1.1 200 OK\r\nTransfer-Encoding: x-custom", .untilClose),
        (.get, "HTTP/1.1 200 OK\r\nServer: x", .untilClose),
        (.get, "HTTP/1.0 200 OK\r\nContent-Length: 0", .contentLength(0)),
        (.head, "HTTP/1.1 200 OK\r\nContent-Length: 10", .none),
        (.head, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked", .none),
        (.get, "HTTP/1.1 100 Continue", .none),
        (.get, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade", .none),
        (.get, "HTTP/1.1 204 No Content", .none),
        (.get, "HTTP/1.1 304 Not Modified\r\nContent-Length: 10", .none),
        (.connect, "HTTP/1.1 200 Connection established", .none),
        (.connect, "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 4", .contentLength(4)),
        (.post, "HTTP/1.1 500 Oops\r\nContent-Length: 2", .contentLength(2)),
    ])
    func determinesFramingFromMethodStatusAndFields(method: HTTPMethod, head: String,
                                                    framing: ResponseBodyFraming)
    {
        #expect(RawHead(head + "\r\n\r\n").response(to: method)?.framing == framing)
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 1", true),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: close", false),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: X, Close", false),
        ("HTTP/1.0 200 OK\r\nContent-Length: 1", false),
        ("HTTP/1.0 200 OK\r\nContent-Length: 1\r\nConnection: keep-alive", true),
        ("HTTP/1.0 200 OK\r\nConnection: keep-alive", false),
        ("HTTP/1.1 200 OK", false),
        ("HTTP/1.1 204 No Content", true),
    ])
    func decidesKeepAlive(head: String, keepAlive: Bool) {
        #expect(RawHead(head + "\r\n\r\n").response()?.keepAlive == keepAlive)
    }

    @Test func collectsTheConnectionTokensThatMayNameFields() {
        let head = RawHead("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nConnection: X-Hop\r\n\r\n")
            .response()
        #expect(head?.connectionTokens == ["x-hop"])
    }

    @Test func reportsEveryProperPrefixAsIncomplete() {
        let bytes = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nServer: a\r\n\r\n".utf8)
        for length in 0..<bytes.count {
            let result = RawHead(bytes: Array(bytes[..<length])).parseResponse()
            guard case .incomplete = result else {
                Issue.record("prefix of \(length) bytes: \(result)")
                return
            }
        }
        #expect(RawHead(bytes: bytes).response()?.headLength == bytes.count)
    }
}

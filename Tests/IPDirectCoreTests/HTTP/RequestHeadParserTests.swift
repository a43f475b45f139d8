import Testing
@testable import IPDirectCore

@Suite struct RequestHeadParserTests {
    // MARK: Rejections (tables in RequestHeadRejections.swift)

    @Test(arguments: framingRejections + lineRejections + targetRejections + requestLineLengthRejections
        + hostAndLimitRejections + hostsDifferingFromTheTarget + shortcutRejections)
    func refusesWithStatusAndReason(_ rejection: Rejection) {
        let result = rejection.head.parseRequest()
        guard case .invalid(let error) = result else {
            rejection.check(nil, got: result)
            return
        }
        rejection.check(error, got: result)
    }

    @Test func refusesABadRequestLineBeforeTheHeadIsComplete() {
        guard case .invalid(let error) = RawHead("GET / HTTP/2.0\r\nHost: a").parseRequest() else {
            Issue.record("an unsupported version must be refused at once")
            return
        }
        #expect(error.status == 505)
        guard case .invalid = RawHead("GET / HTTP/1.1\r\nX-A: b\nHost").parseRequest() else {
            Issue.record("a bare LF must be refused at once")
            return
        }
    }

    // MARK: Accepted requests

    @Test(arguments: [
        ("GET", HTTPMethod.get), ("HEAD", .head), ("POST", .post), ("PUT", .put), ("DELETE", .delete),
        ("OPTIONS", .options), ("TRACE", .trace), ("PATCH", .patch), ("PROPFIND", .other), ("get", .other),
        ("M-SEARCH", .other), ("X!#$%&'*+-.^_`|~1", .other),
    ])
    func classifiesMethodsCaseSensitively(method: String, expected: HTTPMethod) {
        let raw = RawHead("\(method) /x HTTP/1.1\r\nHost: a.test\r\n\r\n")
        guard let head = raw.request() else { return }
        #expect(head.method == expected)
        #expect(raw.text(head.methodBytes) == method)
        let targetStart = method.utf8.count + 1
        #expect(head.target == .origin(targetStart..<targetStart + 2))
    }

    @Test func parsesAnOriginFormRequestWithFields() {
        let raw = RawHead("GET /p/a?q=1&r={x}|y^ HTTP/1.1\r\nHost: a.test:8080\r\nAccept:*/*\r\n"
            + "X-Spaces: \t padded value \t \r\nX-Empty:\r\nX-Empty-Spaces:   \r\n\r\n")
        guard let head = raw.request() else { return }
        guard case .origin(let range) = head.target else {
            Issue.record("expected origin-form, got \(head.target)")
            return
        }
        #expect(raw.text(range) == "/p/a?q=1&r={x}|y^")
        #expect(head.version == .http11)
        #expect(raw.fieldTexts(head.fields) == [
            "Host: a.test:8080", "Accept: */*", "X-Spaces: padded value", "X-Empty: ", "X-Empty-Spaces: ",
        ])
        #expect(head.framing == .none)
        #expect(head.keepAlive)
        #expect(head.headLength == raw.bytes.count)
    }

    @Test func keepsObsTextInFieldValuesAsReceived() {
        let value: [UInt8] = [0xC3, 0xA9, 0xFF, 0x20, 0x80]
        let raw = RawHead(bytes: Array("GET / HTTP/1.1\r\nHost: a.test\r\nX-Raw: ".utf8) + value
            + Array("\r\n\r\n".utf8))
        guard let head = raw.request() else { return }
        #expect(Array(raw.bytes[head.fields[1].value]) == value)
    }

    @Test(arguments: [
        ("http://a.test/x?y", URIScheme.http, "a.test", UInt16(80), "a.test", "/x?y"),
        ("https://a.test/", .https, "a.test", 443, "a.test", "/"),
        ("http://A.Test:8080/P", .http, "a.test", 8080, "A.Test:8080", "/P"),
        ("HTTP://a.test:00080/", .http, "a.test", 80, "a.test:00080", "/"),
        ("http://127.0.0.1:3128//x", .http, "127.0.0.1", 3128, "127.0.0.1:3128", "//x"),
        ("http://[::1]:8080/x", .http, "::1", 8080, "[::1]:8080", "/x"),
        ("https://[2001:DB8::1]/", .https, "2001:db8::1", 443, "[2001:DB8::1]", "/"),
        ("http://a.test./", .http, "a.test.", 80, "a.test.", "/"),
        ("http://_srv.a-b.test:65535/", .http, "_srv.a-b.test", 65535, "_srv.a-b.test:65535", "/"),
        ("http://1x.test/", .http, "1x.test", 80, "1x.test", "/"),
    ])
    func parsesAbsoluteFormTargets(target: String, scheme: URIScheme, host: String, port: UInt16,
                                   authority: String, path: String)
    {
        let raw = RawHead("GET \(target) HTTP/1.1\r\nHost: ignored.test\r\n\r\n")
        guard let head = raw.request() else { return }
        guard case .absolute(let gotScheme, let gotHost, let gotPort, let gotAuthority, let gotPath) = head.target
        else {
            Issue.record("expected absolute-form, got \(head.target)")
            return
        }
        #expect(gotScheme == scheme)
        #expect(gotHost == host)
        #expect(gotPort == port)
        #expect(raw.text(gotAuthority) == authority)
        #expect(gotPath.map(raw.text) == path)
    }

    @Test func reportsAnEmptyAbsolutePathAsNil() {
        let raw = RawHead("GET http://a.test HTTP/1.1\r\nHost: a.test\r\n\r\n")
        guard let head = raw.request() else { return }
        #expect(head.target == .absolute(scheme: .http, host: "a.test", port: 80, authority: 11..<17,
                                         pathAndQuery: nil))
    }

    @Test(arguments: [
        ("a.test:443", "a.test", UInt16(443)), ("A.TEST:1", "a.test", 1), ("[::1]:8443", "::1", 8443),
        ("[2001:db8::1]:443", "2001:db8::1", 443), ("192.0.2.1:65535", "192.0.2.1", 65535),
    ])
    func parsesConnectAuthorityTargets(target: String, host: String, port: UInt16) {
        let raw = RawHead("CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n\r\n")
        guard let head = raw.request() else { return }
        #expect(head.method == .connect)
        #expect(head.target == .authority(host: host, port: port))
        #expect(head.framing == .none)
    }

    @Test func acceptsAZeroContentLengthOnConnect() {
        let head = RawHead("CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\nContent-Length: 0\r\n\r\n").request()
        #expect(head?.framing == RequestBodyFraming.none)
    }

    @Test func parsesOptionsTargets() {
        #expect(RawHead("OPTIONS * HTTP/1.1\r\nHost: a.test\r\n\r\n").request()?.target == .asterisk)
        let absolute = RawHead("OPTIONS http://a.test:81 HTTP/1.1\r\nHost: a.test\r\n\r\n").request()
        #expect(absolute?.target == .absolute(scheme: .http, host: "a.test", port: 81, authority: 15..<24,
                                              pathAndQuery: nil))
    }

    @Test(arguments: [
        ("Content-Length: 0", RequestBodyFraming.contentLength(0)),
        ("Content-Length: 42", .contentLength(42)),
        ("content-length:   007  ", .contentLength(7)),
        ("Content-Length: 18446744073709551615", .contentLength(UInt64.max)),
        ("Transfer-Encoding: chunked", .chunked),
        ("Transfer-Encoding: CHUNKED", .chunked),
        ("Transfer-Encoding: gzip, chunked", .chunked),
        ("Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked", .chunked),
        ("Transfer-Encoding: deflate ,\tchunked", .chunked),
        ("X-Content-Length: 5", .none),
    ])
    func determinesBodyFraming(field: String, framing: RequestBodyFraming) {
        let head = RawHead("POST / HTTP/1.1\r\nHost: a.test\r\n\(field)\r\n\r\n").request()
        #expect(head?.framing == framing)
    }

    @Test(arguments: [
        ("HTTP/1.1", "", true), ("HTTP/1.1", "Connection: close\r\n", false),
        ("HTTP/1.1", "Connection: keep-alive\r\n", true), ("HTTP/1.1", "Connection: Upgrade, CLOSE\r\n", false),
        ("HTTP/1.0", "", false), ("HTTP/1.0", "Connection: keep-alive\r\n", true),
        ("HTTP/1.0", "Connection: Keep-Alive\r\n", true), ("HTTP/1.0", "Proxy-Connection: keep-alive\r\n", false),
        ("HTTP/1.0", "Connection: keep-alive, close\r\n", false),
        ("HTTP/1.0", "Connection: keep-alive\r\nConnection: close\r\n", false),
    ])
    func decidesKeepAliveByVersionAndConnection(version: String, fields: String, keepAlive: Bool) {
        let head = RawHead("GET / \(version)\r\nHost: a.test\r\n\(fields)\r\n").request()
        #expect(head?.keepAlive == keepAlive)
    }

    @Test func collectsTheConnectionTokensThatMayNameFieldsLowerCasedFromAllFields() {
        let head = RawHead("GET / HTTP/1.1\r\nHost: a.test\r\nConnection: Keep-Alive, X-Foo,,\r\n"
            + "connection: close\r\nConnection:\r\n\r\n").request()
        #expect(head?.connectionTokens == ["x-foo", "close"])
        #expect(head?.keepAlive == false)
    }

    @Test(arguments: [
        ("HTTP/1.1", "Expect: 100-continue\r\n", true), ("HTTP/1.1", "expect: 100-Continue\r\n", true),
        ("HTTP/1.1", "Expect: something-else\r\n", false), ("HTTP/1.1", "", false),
        ("HTTP/1.0", "Expect: 100-continue\r\n", false),
    ])
    func detectsExpectContinue(version: String, field: String, expects: Bool) {
        let head = RawHead("PUT / \(version)\r\nHost: a.test\r\n\(field)Content-Length: 1\r\n\r\n").request()
        #expect(head?.expectsContinue == expects)
    }

    @Test(arguments: [
        ("HTTP/1.1", "Upgrade: websocket\r\nConnection: Upgrade\r\n", true),
        ("HTTP/1.1", "Connection: keep-alive, upgrade\r\nUpgrade: h2c\r\n", true),
        ("HTTP/1.1", "Upgrade: websocket\r\n", false),
        ("HTTP/1.1", "Connection: upgrade\r\n", false),
        ("HTTP/1.0", "Upgrade: websocket\r\nConnection: Upgrade\r\n", false),
    ])
    func detectsUpgradeOnlyWithTheConnectionToken(version: String, fields: String, requested: Bool) {
        let head = RawHead("GET / \(version)\r\nHost: a.test\r\n\(fields)\r\n").request()
        #expect(head?.upgradeRequested == requested)
    }

    @Test func acceptsHTTP10WithoutHostAndAnEmptyHostOnHTTP11() {
        #expect(RawHead("GET / HTTP/1.0\r\n\r\n").request()?.version == .http10)
        #expect(RawHead("GET / HTTP/1.1\r\nHost:\r\n\r\n").request()?.version == .http11)
        #expect(RawHead("GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n").request() != nil)
    }

    @Test func reportsTheHeadLengthWhenABodyAndAPipelinedRequestFollow() {
        let first = "POST /a HTTP/1.1\r\nHost: a.test\r\nContent-Length: 5\r\n\r\n"
        let raw = RawHead(first + "hello" + "GET /b HTTP/1.1\r\nHost: a.test\r\n\r\n")
        guard let head = raw.request() else { return }
        #expect(head.headLength == first.utf8.count)
        #expect(head.framing == .contentLength(5))
        #expect(head.fields.allSatisfy { $0.value.upperBound < head.headLength })
    }

    @Test func ignoresOneEmptyLineBeforeTheRequestLine() {
        let raw = RawHead("\r\nGET /x HTTP/1.1\r\nHost: a.test\r\n\r\n")
        guard let head = raw.request() else { return }
        #expect(raw.text(head.methodBytes) == "GET")
        #expect(head.headLength == raw.bytes.count)
    }

    // MARK: Incomplete input and limits

    @Test(arguments: [
        "GET / HTTP/1.1\r\nHost: a.test\r\nX-A: b\r\n\r\n",
        "\r\nPOST http://[::1]:8080/x HTTP/1.0\r\nContent-Length: 3\r\nConnection: keep-alive\r\n\r\n",
        "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n",
    ])
    func reportsEveryProperPrefixAsIncomplete(text: String) {
        let bytes = Array(text.utf8)
        for length in 0..<bytes.count {
            let result = RawHead(bytes: Array(bytes[..<length])).parseRequest()
            guard case .incomplete = result else {
                Issue.record("prefix of \(length) bytes: \(result)")
                return
            }
        }
        #expect(RawHead(bytes: bytes).request()?.headLength == bytes.count)
    }

    @Test func acceptsAHeadOfExactlyTheLimitAndRefusesOneByteMore() {
        let prefix = "GET / HTTP/1.1\r\nHost: a.test\r\nX-Pad: "
        let limit = 200
        let padding = limit - prefix.utf8.count - "\r\n\r\n".utf8.count
        let fits = RawHead(prefix + String(repeating: "p", count: padding) + "\r\n\r\n")
        #expect(fits.bytes.count == limit)
        #expect(fits.request(limits: HTTPHeadLimits(maxHeadBytes: limit))?.headLength == limit)
        let over = RawHead(prefix + String(repeating: "p", count: padding + 1) + "\r\n\r\n")
        guard case .invalid(let error) = over.parseRequest(limits: HTTPHeadLimits(maxHeadBytes: limit)) else {
            Issue.record("one byte over the limit must be refused")
            return
        }
        #expect(error.status == 431)
    }

    @Test func refusesARequestLineThatDoesNotEndWithinTheLimitWith414() {
        let limits = HTTPHeadLimits(maxHeadBytes: 200)
        /// An HTTP/1.0 request line of exactly `length` bytes (CRLF not counted), then the empty line.
        func head(lineLength length: Int) -> RawHead {
            let prefix = "GET http://a.test/"
            let version = " HTTP/1.0"
            return RawHead(prefix + String(repeating: "p", count: length - prefix.utf8.count - version.utf8.count)
                + version + "\r\n\r\n")
        }
        #expect(head(lineLength: 196).request(limits: limits)?.headLength == 200)
        // The line and its CRLF fit, the empty line does not: the head is too large, not the target.
        guard case .invalid(let fieldsOver) = head(lineLength: 198).parseRequest(limits: limits) else {
            Issue.record("a head past the limit must be refused")
            return
        }
        #expect(fieldsOver.status == 431)
        // The line's CRLF straddles the limit: nothing past it is looked at, so the line did not end.
        guard case .invalid(let lineOver) = head(lineLength: 199).parseRequest(limits: limits) else {
            Issue.record("a request line past the limit must be refused")
            return
        }
        #expect(lineOver == HTTPParseError(status: 414, reason: "request target too long"))
        guard case .incomplete = RawHead("GET http://a.test/" + String(repeating: "p", count: 150))
            .parseRequest(limits: limits)
        else {
            Issue.record("a request line within the limit must be waited for")
            return
        }
    }

    @Test func waitsWhileAnUnfinishedHeadIsWithinTheLimit() {
        let partial = RawHead("GET / HTTP/1.1\r\nHost: a.test\r\nX-A: " + String(repeating: "x", count: 150))
        guard case .incomplete = partial.parseRequest(limits: HTTPHeadLimits(maxHeadBytes: 200)) else {
            Issue.record("expected incomplete")
            return
        }
        guard case .invalid(let error) = partial.parseRequest(limits: HTTPHeadLimits(maxHeadBytes: 100)) else {
            Issue.record("expected 431")
            return
        }
        #expect(error.status == 431)
    }

    @Test func acceptsExactlyTheFieldLimit() {
        let fields = "Host: a.test\r\n" + String(repeating: "X-A: b\r\n", count: 9)
        let limits = HTTPHeadLimits(maxFieldCount: 10)
        #expect(RawHead("GET / HTTP/1.1\r\n\(fields)\r\n").request(limits: limits)?.fields.count == 10)
        guard case .invalid(let error) = RawHead("GET / HTTP/1.1\r\n\(fields)X-B: c\r\n\r\n")
            .parseRequest(limits: limits)
        else {
            Issue.record("expected 431")
            return
        }
        #expect(error.status == 431)
    }

    @Test func keepsParsedRangesInsideTheHead() {
        let raw = RawHead("PATCH http://a.test/x HTTP/1.1\r\nHost: a.test\r\nA: 1\r\nB:2 \r\n\r\ntrailing body")
        guard let head = raw.request() else { return }
        for field in head.fields {
            #expect(field.name.upperBound <= head.headLength && field.value.upperBound <= head.headLength)
            #expect(field.name.upperBound < field.value.lowerBound)
        }
    }
}


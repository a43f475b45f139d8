import Testing
@testable import IPDirectCore

@Suite struct HeadRewriterTests {
    private func upstream(_ text: String, host: String = "a.test", keepUpgrade: Bool = false, close: Bool = false,
                          sourceLocation: SourceLocation = #_sourceLocation) -> String?
    {
        let raw = RawHead(text)
        guard let head = raw.request(sourceLocation: sourceLocation) else { return nil }
        let out = raw.bytes.withUnsafeBytes {
            HeadRewriter.upstreamRequest(head, in: $0, hostValue: host, viaName: "ipdirect", keepUpgrade: keepUpgrade,
                                         close: close)
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func client(_ text: String, to method: HTTPMethod = .get, keepUpgrade: Bool = false,
                        persistence: ResponsePersistence = .persistent,
                        sourceLocation: SourceLocation = #_sourceLocation) -> String?
    {
        let raw = RawHead(text)
        guard let head = raw.response(to: method, sourceLocation: sourceLocation) else { return nil }
        let out = raw.bytes.withUnsafeBytes {
            HeadRewriter.clientResponse(head, in: $0, viaName: "ipdirect", keepUpgrade: keepUpgrade,
                                        persistence: persistence)
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test func rewritesAnAbsoluteFormRequestToOriginForm() {
        let out = upstream("GET http://A.Test:8080/p?q=1 HTTP/1.1\r\nHost: wrong.test\r\nAccept: */*\r\n"
            + "Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic eDp5\r\n\r\n", host: "A.Test:8080")
        #expect(out == "GET /p?q=1 HTTP/1.1\r\nHost: A.Test:8080\r\nAccept: */*\r\nVia: 1.1 ipdirect\r\n\r\n")
    }

    @Test(arguments: [
        ("GET http://a.test HTTP/1.1", "GET / HTTP/1.1"),
        ("OPTIONS http://a.test HTTP/1.1", "OPTIONS * HTTP/1.1"),
        ("OPTIONS http://a.test/x HTTP/1.1", "OPTIONS /x HTTP/1.1"),
        ("OPTIONS * HTTP/1.1", "OPTIONS * HTTP/1.1"),
        ("GET /already/origin?x HTTP/1.1", "GET /already/origin?x HTTP/1.1"),
        ("PROPFIND https://a.test//d/ HTTP/1.0", "PROPFIND //d/ HTTP/1.1"),
    ])
    func choosesTheUpstreamRequestTarget(requestLine: String, expected: String) {
        let out = upstream("\(requestLine)\r\nHost: a.test\r\n\r\n")
        #expect(out?.split(separator: "\r\n").first.map(String.init) == expected)
    }

    @Test func dropsEveryHopByHopFieldAndEveryFieldNamedInConnection() {
        let out = upstream("POST http://a.test/ HTTP/1.1\r\nHost: a.test\r\nConnection: keep-alive, X-Hop\r\n"
            + "Keep-Alive: timeout=5\r\nX-Hop: 1\r\nx-hop: 2\r\nTE: trailers\r\nTrailer: X-T\r\n"
            + "Upgrade: websocket\r\nProxy-Authenticate: Basic\r\nProxy-Authorization: Basic eDp5\r\n"
            + "Proxy-Connection: close\r\nContent-Length: 3\r\nX-Keep: yes\r\n\r\n")
        #expect(out == "POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 3\r\nX-Keep: yes\r\n"
            + "Via: 1.1 ipdirect\r\n\r\n")
    }

    @Test(arguments: ["close", "Close", "close, X-Hop", "X-Hop, close", "close, close, X-Hop"])
    func aFieldNamedCloseIsDroppedWhenConnectionSaysClose(connection: String) {
        let out = upstream("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nConnection: \(connection)\r\nClose: x\r\n"
            + "X-Hop: 1\r\nX-Keep: yes\r\n\r\n", close: true)
        let keepsHop = !connection.contains("X-Hop")
        #expect(out == "GET / HTTP/1.1\r\nHost: a.test\r\n" + (keepsHop ? "X-Hop: 1\r\n" : "")
            + "X-Keep: yes\r\nVia: 1.1 ipdirect\r\nConnection: close\r\n\r\n")
    }

    @Test func copiesKeptFieldLinesByteForByte() {
        // Invalid UTF-8 and trailing whitespace would not survive a trip through String.
        let fields: [UInt8] = Array("X-Raw:\t ".utf8) + [0xFF, 0xC3, 0x28, 0x20, 0x09]
            + Array("\r\nx-lower:v\r\n".utf8)
        let raw = RawHead(bytes: Array("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n".utf8) + fields
            + Array("\r\n".utf8))
        guard let head = raw.request() else { return }
        let out = raw.bytes.withUnsafeBytes {
            HeadRewriter.upstreamRequest(head, in: $0, hostValue: "a.test", viaName: "p", keepUpgrade: false,
                                         close: false)
        }
        #expect(out == Array("GET / HTTP/1.1\r\nHost: a.test\r\n".utf8) + fields + Array("Via: 1.1 p\r\n\r\n".utf8))
    }

    @Test func appendsViaAfterTheReceivedVia() {
        let out = upstream("GET / HTTP/1.1\r\nVia: 1.1 first\r\nHost: a.test\r\nVIA: 1.0 second\r\n\r\n")
        #expect(out == "GET / HTTP/1.1\r\nHost: a.test\r\nVia: 1.1 first\r\nVIA: 1.0 second\r\n"
            + "Via: 1.1 ipdirect\r\n\r\n")
    }

    @Test func namesTheReceivedVersionInVia() {
        let out = upstream("GET http://a.test/ HTTP/1.0\r\n\r\n")
        #expect(out == "GET / HTTP/1.1\r\nHost: a.test\r\nVia: 1.0 ipdirect\r\n\r\n")
    }

    @Test func keepsUpgradeWhenAsked() {
        let text = "GET http://a.test/ws HTTP/1.1\r\nHost: a.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
            + "Sec-WebSocket-Key: k\r\n\r\n"
        #expect(upstream(text, keepUpgrade: true) == "GET /ws HTTP/1.1\r\nHost: a.test\r\nUpgrade: websocket\r\n"
            + "Sec-WebSocket-Key: k\r\nVia: 1.1 ipdirect\r\nConnection: upgrade\r\n\r\n")
        #expect(upstream(text, keepUpgrade: false) == "GET /ws HTTP/1.1\r\nHost: a.test\r\n"
            + "Sec-WebSocket-Key: k\r\nVia: 1.1 ipdirect\r\n\r\n")
    }

    @Test func announcesCloseWhenAsked() {
        let out = upstream("GET / HTTP/1.1\r\nHost: a.test\r\nConnection: keep-alive\r\n\r\n", close: true)
        #expect(out == "GET / HTTP/1.1\r\nHost: a.test\r\nVia: 1.1 ipdirect\r\nConnection: close\r\n\r\n")
    }

    @Test func producesAHeadThatParsesWithTheSameFraming() {
        let text = "POST http://a.test:81/up HTTP/1.1\r\nHost: a.test:81\r\nTransfer-Encoding: gzip, chunked\r\n"
            + "Connection: close, X-A\r\nX-A: 1\r\nExpect: 100-continue\r\n\r\n"
        let raw = RawHead(text)
        guard let head = raw.request() else { return }
        let out = raw.bytes.withUnsafeBytes {
            HeadRewriter.upstreamRequest(head, in: $0, hostValue: "a.test:81", viaName: "ipdirect", keepUpgrade: false,
                                         close: true)
        }
        guard let again = RawHead(bytes: out).request() else { return }
        #expect(again.framing == .chunked)
        #expect(again.method == .post)
        #expect(again.expectsContinue)
        #expect(!again.keepAlive)
        #expect(again.headLength == out.count)
    }

    @Test func rewritesAResponseForTheClient() {
        let out = client("HTTP/1.0 200 Fine Thanks\r\nServer: origin\r\nConnection: keep-alive, X-Hop\r\n"
            + "Keep-Alive: timeout=5\r\nX-Hop: 1\r\nProxy-Authenticate: Basic\r\nContent-Length: 2\r\n\r\nok")
        #expect(out == "HTTP/1.1 200 Fine Thanks\r\nServer: origin\r\nContent-Length: 2\r\nVia: 1.0 ipdirect\r\n\r\n")
    }

    @Test func rewritesResponsesWithEmptyReasonsUpgradesAndClose() {
        #expect(client("HTTP/1.1 204\r\nX: y\r\n\r\n", persistence: .close)
            == "HTTP/1.1 204 \r\nX: y\r\nVia: 1.1 ipdirect\r\nConnection: close\r\n\r\n")
        #expect(client("HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
                       keepUpgrade: true)
            == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nVia: 1.1 ipdirect\r\n"
            + "Connection: upgrade\r\n\r\n")
    }

    @Test func announcesKeepAliveToAnHTTP10ClientInPlaceOfTheOriginsConnectionFields() {
        // The origin's own Connection and Keep-Alive are hop-by-hop; the proxy speaks for its own connection.
        #expect(client("HTTP/1.1 200 OK\r\nConnection: close\r\nKeep-Alive: timeout=5\r\nContent-Length: 2\r\n\r\n",
                       persistence: .keepAlive)
            == "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nVia: 1.1 ipdirect\r\nConnection: keep-alive\r\n\r\n")
        #expect(client("HTTP/1.1 304 Not Modified\r\nETag: \"a\"\r\n\r\n", persistence: .keepAlive)
            == "HTTP/1.1 304 Not Modified\r\nETag: \"a\"\r\nVia: 1.1 ipdirect\r\nConnection: keep-alive\r\n\r\n")
    }

    @Test func keepsAHostFieldInResponses() {
        #expect(client("HTTP/1.1 200 OK\r\nHost: odd.test\r\nContent-Length: 0\r\n\r\n")
            == "HTTP/1.1 200 OK\r\nHost: odd.test\r\nContent-Length: 0\r\nVia: 1.1 ipdirect\r\n\r\n")
    }

    @Test func copiesRunsOfKeptLinesExactlyAroundDroppedOnes() {
        // Dropped lines first, between kept runs and last; odd spacing and case must come through unchanged.
        let text = "GET http://a.test/ HTTP/1.1\r\nconnection:close ,X-Gone\r\nHost:a.test\r\nA:1\r\nb:  2 \t\r\n"
            + "X-GONE: x\r\nC:3\r\nTE: trailers\r\nclose: named\r\nD:\r\ne-e:\t5\r\nKeep-Alive: 1\r\n\r\n"
        #expect(upstream(text) == "GET / HTTP/1.1\r\nHost: a.test\r\nA:1\r\nb:  2 \t\r\nC:3\r\nD:\r\ne-e:\t5\r\n"
            + "Via: 1.1 ipdirect\r\n\r\n")
        #expect(client("HTTP/1.1 200 OK\r\nA: 1\r\nConnection: x-b\r\nX-B: 2\r\nC: 3 \r\n\r\n")
            == "HTTP/1.1 200 OK\r\nA: 1\r\nC: 3 \r\nVia: 1.1 ipdirect\r\n\r\n")
    }

    @Test func dropsFieldsNamedByConnectionEvenWhenTheyAreNotHopByHop() {
        #expect(upstream("GET / HTTP/1.1\r\nHost: a.test\r\nConnection: Via, expect\r\nVia: 1.1 x\r\n"
            + "Expect: 100-continue\r\nX: y\r\n\r\n")
            == "GET / HTTP/1.1\r\nHost: a.test\r\nX: y\r\nVia: 1.1 ipdirect\r\n\r\n")
        #expect(client("HTTP/1.1 200 OK\r\nHost: odd.test\r\nConnection: host\r\nContent-Length: 0\r\n\r\n")
            == "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nVia: 1.1 ipdirect\r\n\r\n")
    }

    @Test(arguments: [100, 103, 200, 204, 304, 404, 599])
    func writesTheStatusCodeAsThreeDigits(status: Int) {
        #expect(client("HTTP/1.1 \(status) X\r\n\r\n", to: .head)?.hasPrefix("HTTP/1.1 \(status) X\r\n") == true)
    }

    @Test func forwardsAHeadWithoutFieldsAndOneWithOnlyDroppedFields() {
        #expect(client("HTTP/1.1 200 OK\r\n\r\n") == "HTTP/1.1 200 OK\r\nVia: 1.1 ipdirect\r\n\r\n")
        #expect(upstream("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nTE: x\r\n\r\n", close: true)
            == "GET / HTTP/1.1\r\nHost: a.test\r\nVia: 1.1 ipdirect\r\nConnection: close\r\n\r\n")
    }
}

import Testing
@testable import IPDirectCore

/// From a request head to an upstream connection: lookups, policy, pooled connections, the PAC file.
@Suite struct SessionMachineRequestTests {
    @Test func anAcceptedConnectionArmsTheHeaderDeadline() {
        var script = SessionScript()
        #expect(script.run([.start]) == [[.armTimer(millis: 10_000)]])
    }

    @Test func aProxyRequestCancelsTheDeadlineAndLooksItsHostUp() {
        var script = SessionScript()
        let actions = script.run([.start, .head(Heads.get())])
        #expect(actions[1] == [.cancelTimer, .resolve(host: "a.test")])
        #expect(script.machine.phase == .resolving)
    }

    @Test func resolvedAddressesAreConnectedWithAPooledConnectionAllowed() {
        var script = SessionScript()
        let actions = script.run([.start, .head(Heads.get()), .resolved(["203.0.113.7", "203.0.113.8"])])
        let expected = UpstreamRequest(scheme: .http, hostKey: UpstreamHostKey(host: "a.test", port: 80),
                                       addresses: [IPAddress("203.0.113.7")!, IPAddress("203.0.113.8")!], mayReusePooled: true)
        #expect(actions[2] == [.connect(expected)])
        #expect(script.machine.phase == .connecting)
    }

    @Test func anUpstreamConnectionArrivingWhenNoneIsAwaitedIsTurnedAway() {
        var script = SessionScript()
        let link = UpstreamLink(reused: false, isTLS: false)
        _ = script.run([.start, .head(Heads.get())])
        #expect(script.machine.upstreamReady(link, address: SessionScript.address, .connected(attempts: 1, rank: 1), now: 0) == false)
        #expect(script.machine.phase == .resolving)
        _ = script.run([.resolved(["203.0.113.7"])])
        #expect(script.machine.upstreamReady(link, address: SessionScript.address, .connected(attempts: 1, rank: 1), now: 0) == true)
        #expect(script.machine.phase == .awaitingResponse)
        #expect(script.machine.upstreamReady(link, address: SessionScript.address, .pooled(rank: nil), now: 0) == false)
    }

    @Test func aConnectRequestNeverTakesAPooledConnection() {
        var script = SessionScript()
        let actions = script.run([.start, .head(Heads.connect), .resolved(["203.0.113.7"])])
        guard case .connect(let request) = actions[2].first else {
            Issue.record("no connect: \(actions[2])")
            return
        }
        #expect(request.port == 443)
        #expect(!request.mayReusePooled)
    }

    @Test func aConnectToAPortOutsideConnectPortsIsRefusedWithoutALookup() {
        var script = SessionScript()
        let actions = script.all([.start, .head("CONNECT a.test:25 HTTP/1.1\r\nHost: a.test:25\r\n\r\n")])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
        #expect(actions.sentText.contains("error=http_request_denied"))
        #expect(!actions.contains(.resolve(host: "a.test")))
        #expect(Array(actions.suffix(2)) == [.cancelTimer, .flushClient])
        #expect(script.machine.phase == .flushing)
    }

    @Test func aRequestInOriginFormIsNotAProxyRequest() {
        var script = SessionScript()
        let actions = script.all([.start, .head("GET /index.html HTTP/1.1\r\nHost: a.test\r\n\r\n")])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(actions.sentText.contains("not a proxy request"))
        #expect(script.machine.phase == .flushing)
    }

    @Test(arguments: [(400, "Bad Request"), (414, "URI Too Long"), (431, "Request Header Fields Too Large")])
    func anUnparsableHeadIsAnsweredWithItsStatusAndTheConnectionCloses(status: Int, phrase: String) {
        var script = SessionScript()
        let actions = script.all([.start, .buffers(BufferLevels(clientInput: 70_000)),
                                  .invalidHead(HTTPParseError(status: status, reason: "refused"))])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 \(status) \(phrase)\r\n"))
        #expect(actions.sentText.contains("Connection: close\r\n"))
        #expect(script.logged?.status == status)
        #expect(!actions.contains { if case .resolve = $0 { return true } else { return false } })
        #expect(script.machine.phase == .flushing)
    }

    @Test func theUpstreamHeadCarriesTheHostAndVia() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.get(fields: "Proxy-Connection: keep-alive\r\nCookie: a=1\r\n")),
                                  .resolved(["203.0.113.7"]), .ready()])
        let head = actions.forwardedRequest ?? ""
        #expect(head.hasPrefix("GET /x HTTP/1.1\r\nHost: a.test\r\n"))
        #expect(head.contains("Cookie: a=1\r\n"))
        #expect(!head.contains("Proxy-Connection"))
        #expect(head.contains("Via: 1.1 ipdirect\r\n"))
    }

    @Test func httpsUpgradeSendsPlainHTTPRequestsOverTLSToPort443() {
        var script = SessionScript { $0.upstream.httpsUpgrade = [HostPattern("a.test")!] }
        let actions = script.all([.start, .head(Heads.get()), .resolved(["203.0.113.7"])])
        guard case .connect(let request) = actions.last else {
            Issue.record("no connect: \(actions)")
            return
        }
        #expect(request.scheme == .https)
        #expect(request.port == 443)
        #expect(request.poolKey == UpstreamPoolKey(scheme: .https, host: "a.test", port: 443))
    }

    @Test func aBrokenChunkedBodyBufferedWithTheHeadIsRefusedBeforeAnyLookup() {
        var script = SessionScript()
        let actions = script.all([.start, .headWithBrokenBody(Heads.chunkedPost, HTTPParseError(status: 400, reason: "bad chunk size"))])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 400 "))
        #expect(!actions.contains(.resolve(host: "a.test")))
        #expect(script.machine.phase == .flushing)
    }

    @Test func aFailedLookupFirstLooksForAPooledConnection() {
        var script = SessionScript()
        let actions = script.run([.start, .head(Heads.get()), .lookupFailed(.notFound)])
        #expect(actions[2] == [.reusePooled(key: UpstreamPoolKey(scheme: .http, host: "a.test", port: 80))])
    }

    @Test func withoutAPooledConnectionAFailedLookupIsAnsweredAndTheConnectionKept() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.get()), .lookupFailed(.notFound), .noPooledConnection])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 502 Bad Gateway\r\n"))
        #expect(actions.sentText.contains("error=dns_error"))
        #expect(actions.last == .readNextRequest)
        #expect(script.machine.phase == .readingHead)
    }

    @Test func aLookupThatTimedOutIs504() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.get()), .lookupFailed(.timeout), .noPooledConnection])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 504 Gateway Timeout\r\n"))
        #expect(actions.sentText.contains("error=dns_timeout"))
    }

    @Test func aPooledConnectionCarriesARequestWhoseLookupFailedAndTheLogSaysSo() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.get()), .lookupFailed(.timeout), .pooled,
                                  .requestPumped(.complete, moved: 0), .responseHead(Heads.ok()),
                                  .responsePumped(.complete, moved: 5)])
        #expect(actions.forwardedRequest != nil)
        #expect(script.logged?.source == "pool")
        #expect(script.logged?.note.hasPrefix("resolution failed, a pooled connection was reused") == true)
    }

    @Test func aConnectWhoseLookupFailedIsAnsweredAtOnce() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.connect), .lookupFailed(.notFound)])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 502 "))
        #expect(!actions.contains { if case .reusePooled = $0 { return true } else { return false } })
        #expect(script.machine.phase == .flushing)
    }

    @Test func aNameThatResolvesOnlyInsideIsRefused() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.get()), .resolved(["10.1.2.3"], .system)])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
        #expect(actions.sentText.contains("error=destination_ip_prohibited"))
    }

    @Test func aHostsEntryMayPointInside() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.get()), .resolved(["10.1.2.3"], .hosts)])
        #expect(actions.contains { if case .connect = $0 { return true } else { return false } })
    }

    @Test func aFailedConnectIsAnsweredWithItsErrorAndItsAttemptsAreLogged() {
        var script = SessionScript()
        let refused = ProxyError(status: 502, kind: .connectionRefused, details: "a.test:80: 203.0.113.7 refused")
        let actions = script.all([.start, .head(Heads.get()), .resolved(["203.0.113.7"]), .wait(millis: 3),
                                  .connectFailed(refused, attempts: 2)])
        #expect(actions.contains(.reportError(refused, target: "a.test:80")))
        #expect(actions.sentText.contains("error=connection_refused"))
        #expect(script.logged?.connectAttempts == 2)
        #expect(script.logged?.connectMicros == 3000)
        #expect(actions.last == .readNextRequest)
    }

    @Test func lookupAndConnectTimesComeFromTheInjectedClock() {
        var script = SessionScript()
        let actions = script.all(SessionScript.sentGet.prefix(2) + [.wait(millis: 4), .resolved(["203.0.113.7"]),
                                 .wait(millis: 6), .ready(), .requestPumped(.complete, moved: 0),
                                 .wait(millis: 10), .responseHead(Heads.ok()), .responsePumped(.complete, moved: 5)])
        let logged = script.logged
        #expect(logged?.resolveMicros == 4000)
        #expect(logged?.connectMicros == 6000)
        #expect(logged?.firstByteMicros == 20_000)
        #expect(logged?.upstreamAddress == SessionScript.address)
    }

    @Test func thePACFileNamesTheAddressTheClientReached() {
        var script = SessionScript()
        let listener = SocketAddress("127.0.0.1:3128")!
        let actions = script.run([.start, .head("GET /proxy.pac HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"), .listenerAddress(listener)])
        #expect(actions[1] == [.cancelTimer, .lookUpListenerAddress])
        #expect(actions[2].sentText.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(actions[2].sentText.contains("PROXY 127.0.0.1:3128"))
        #expect(actions[2].last == .readNextRequest)
    }

    @Test func aHEADOfThePACFileHasNoBody() {
        var script = SessionScript()
        let actions = script.all([.start, .head("HEAD /proxy.pac HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
                                  .listenerAddress(SocketAddress("127.0.0.1:3128")!)])
        #expect(actions.sentText.hasSuffix("\r\n\r\n"))
        #expect(!actions.sentText.contains("PROXY"))
    }

    @Test func aPACRequestOnASocketWithoutALocalAddressIs500() {
        var script = SessionScript()
        let actions = script.all([.start, .head("GET /proxy.pac HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"), .listenerAddress(nil)])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 500 "))
        #expect(actions.sentText.contains("error=proxy_internal_error"))
    }

    @Test func theFirstByteOfTheNextRequestStartsTheHeaderDeadline() {
        var script = SessionScript()
        let actions = script.run(SessionScript.sentGet + [.responseHead(Heads.ok()), .responsePumped(.complete, moved: 5),
                                                          .wait(millis: 1000), .requestBegan, .requestBegan])
        #expect(actions[6].contains(.armTimer(millis: SessionRules.parkAfterMillis)))
        #expect(actions[8] == [.armTimer(millis: 10_000)])
        #expect(actions[9] == [])
    }

    @Test func anUploadRunsOnTheClientIdleDeadlineUntilTheWholeRequestIsSent() {
        var script = SessionScript()
        let actions = script.run([.start, .head(Heads.post(length: 10)), .resolved(["203.0.113.7"]), .ready(),
                                  .requestPumped(.remaining(4), moved: 6), .requestPumped(.complete, moved: 4),
                                  .requestPumped(.complete, moved: 0)])
        #expect(actions[3].first == .armTimer(millis: 60_000))
        #expect(actions[3].forwardedRequest?.contains("Content-Length: 10\r\n") == true)
        #expect(actions[4] == [])
        #expect(actions[5] == [.cancelTimer, .armResponseTimeout(millis: 60_000)])
        #expect(actions[6] == [])
    }

    @Test func aClientThatClosesBeforeItsBodyIsSentEndsTheConnection() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.post(length: 10)), .resolved(["203.0.113.7"]), .ready(),
                                  .clientFIN, .requestPumped(.remaining(10), moved: 0)])
        #expect(actions.contains(.pumpRequestBody))
        #expect(script.logged?.note == "client closed before sending the whole request body")
        #expect(actions.last == .close)
    }

    @Test func aFullUpstreamOutputPausesTheClient() {
        var script = SessionScript()
        let actions = script.run([.start, .head(Heads.post(length: 1 << 30)), .resolved(["203.0.113.7"]), .ready(),
                                  .buffers(BufferLevels(upstreamOutput: SessionRules.outputHighWater)),
                                  .requestPumped(.remaining(1 << 29), moved: 1 << 29)])
        #expect(actions[5] == [.pauseReading(.client)])
    }

    @Test func brokenRequestChunkingBeforeAnyResponseIs400() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.chunkedPost), .resolved(["203.0.113.7"]), .ready(),
                                  .requestBroken(HTTPParseError(status: 400, reason: "bad chunk size"))])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 400 "))
        #expect(actions.contains(.abandonUpstream))
        #expect(script.machine.phase == .flushing)
    }

    @Test func aProxyErrorAnsweringHEADHasNoBody() {
        var script = SessionScript()
        let actions = script.all([.start, .head("HEAD http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n"),
                                  .lookupFailed(.notFound), .noPooledConnection])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 502 "))
        #expect(actions.sentText.hasSuffix("\r\n\r\n"))
    }
}

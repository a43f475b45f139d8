import Testing
@testable import IPDirectCore

/// Response heads and bodies: persistence, interim responses, upgrades, retries and upstream failures.
@Suite struct SessionMachineResponseTests {
    @Test func aFinalResponseHeadIsForwardedRewritten() {
        var script = SessionScript()
        let actions = script.run(SessionScript.sentGet + [.responseHead(Heads.ok(fields: "Keep-Alive: timeout=5\r\nSet-Cookie: s=1\r\n"))])
        let head = actions[5].forwardedResponse ?? ""
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(head.contains("Set-Cookie: s=1\r\n"))
        #expect(!head.contains("Keep-Alive"))
        #expect(head.contains("Via: 1.1 ipdirect\r\n"))
        #expect(script.machine.phase == .streamingResponse)
    }

    @Test func aCompleteResponsePoolsTheUpstreamAndReadsTheNextRequest() {
        var script = SessionScript()
        let actions = script.run(SessionScript.sentGet + [.responseHead(Heads.ok()), .responsePumped(.complete, moved: 5)])
        #expect(actions[6].first == .logExchange, "logged first, before anything of the next exchange")
        #expect(script.logged(at: 6)?.status == 200)
        #expect(Array(actions[6].dropFirst()) == [.releaseUpstream(reusable: true), .resumeReading(.client),
                                                  .armTimer(millis: SessionRules.parkAfterMillis), .readNextRequest])
        #expect(script.machine.phase == .readingHead)
    }

    @Test func aBodyInPiecesFinishesOnlyAtItsEnd() {
        var script = SessionScript()
        let actions = script.run(SessionScript.sentGet + [.responseHead(Heads.ok(length: 10)),
                                                          .responsePumped(.remaining(6), moved: 4),
                                                          .responsePumped(.complete, moved: 6)])
        #expect(actions[6] == [])
        #expect(script.logged(at: 7)?.bytesToClient ?? 0 >= 10)
    }

    @Test func aBodyThatRunsUntilCloseEndsWithTheServersFIN() {
        // Splicing off: the body stays in the buffers.
        var script = SessionScript { $0.proxy.maxPipes = 0 }
        let actions = script.run(SessionScript.sentGet + [.responseHead(Heads.untilClose),
                                                          .responsePumped(.untilClose, moved: 100),
                                                          .upstreamEnded(.eof),
                                                          .responsePumped(.untilClose, moved: 20)])
        #expect(actions[5].forwardedResponse?.contains("Connection: close\r\n") == true)
        #expect(actions[6] == [])
        #expect(actions[7] == [.pumpResponseBody])
        #expect(actions[8].contains(.releaseUpstream(reusable: false)))
        #expect(Array(actions[8].suffix(2)) == [.cancelTimer, .flushClient])
    }

    @Test func aServerThatClosesItsConnectionEndsTheClientsToo() {
        var script = SessionScript()
        let actions = script.all(SessionScript.sentGet + [.responseHead(Heads.ok(fields: "Connection: close\r\n")),
                                                          .responsePumped(.complete, moved: 5)])
        #expect(actions.forwardedResponse?.contains("Connection: close\r\n") == true)
        #expect(actions.contains(.releaseUpstream(reusable: false)))
        #expect(script.machine.phase == .flushing)
    }

    @Test func unreadResponseBytesKeepTheUpstreamOutOfThePool() {
        var script = SessionScript()
        let actions = script.all(SessionScript.sentGet + [.responseHead(Heads.ok()), .buffers(BufferLevels(upstreamInput: 3)),
                                                          .responsePumped(.complete, moved: 5)])
        #expect(actions.contains(.releaseUpstream(reusable: false)))
        #expect(script.machine.phase == .readingHead)
    }

    @Test func anHTTP10ClientThatAsksForKeepAliveIsToldItIsKept() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.get(version: "1.0", fields: "Connection: keep-alive\r\n")),
                                  .resolved(["203.0.113.7"]), .ready(), .requestPumped(.complete, moved: 0),
                                  .responseHead(Heads.ok()), .responsePumped(.complete, moved: 5)])
        #expect(actions.forwardedResponse?.contains("Connection: keep-alive\r\n") == true)
        #expect(actions.last == .readNextRequest)
    }

    @Test func anHTTP10ClientIsClosedAfterAChunkedResponse() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.get(version: "1.0", fields: "Connection: keep-alive\r\n")),
                                  .resolved(["203.0.113.7"]), .ready(), .requestPumped(.complete, moved: 0),
                                  .responseHead(Heads.chunked), .responsePumped(.complete, moved: 5)])
        #expect(actions.forwardedResponse?.contains("Connection: close\r\n") == true)
        #expect(script.machine.phase == .flushing)
    }

    @Test func anHTTP10ClientWithoutKeepAliveIsClosed() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.get(version: "1.0")), .resolved(["203.0.113.7"]), .ready(),
                                  .requestPumped(.complete, moved: 0), .responseHead(Heads.ok()),
                                  .responsePumped(.complete, moved: 5)])
        #expect(actions.forwardedResponse?.contains("Connection: close\r\n") == true)
        #expect(script.machine.phase == .flushing)
    }

    @Test func interimResponsesPassToHTTP11Clients() {
        var script = SessionScript()
        let actions = script.run(SessionScript.sentGet + [.responseHead("HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n")])
        #expect(actions[5].sentText.hasPrefix("HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n"))
        #expect(script.machine.phase == .awaitingResponse)
    }

    @Test func anHTTP10ClientIsSentNoInterimResponse() {
        var script = SessionScript()
        let actions = script.run([.start, .head(Heads.get(version: "1.0")), .resolved(["203.0.113.7"]), .ready(),
                                  .requestPumped(.complete, moved: 0), .responseHead("HTTP/1.1 100 Continue\r\n\r\n")])
        #expect(actions[5] == [])
        #expect(script.machine.phase == .awaitingResponse)
    }

    @Test func endlessInterimResponsesAre502() {
        var script = SessionScript()
        let interim = Array(repeating: SessionScript.Event.responseHead("HTTP/1.1 100 Continue\r\n\r\n"),
                            count: SessionRules.maxInterimResponses + 1)
        let actions = script.run(SessionScript.sentGet + interim)
        #expect(actions.last?.sentText.contains("HTTP/1.1 502 Bad Gateway\r\n") == true)
        #expect(actions.last?.sentText.contains("interim responses") == true)
    }

    @Test func aSwitchWithoutAnUpgradeRequestIs502() {
        var script = SessionScript()
        let actions = script.all(SessionScript.sentGet + [.responseHead("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n")])
        #expect(actions.sentText.contains("HTTP/1.1 502 "))
        #expect(actions.sentText.contains("switched protocols without an Upgrade request"))
    }

    @Test func aSwitchAfterAnUpgradeRequestStartsATunnel() {
        var script = SessionScript()
        let actions = script.run([.start, .head(Heads.upgrade), .resolved(["203.0.113.7"]), .ready(),
                                  .requestPumped(.complete, moved: 0),
                                  .responseHead("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n")])
        #expect(actions[3].forwardedRequest?.contains("Upgrade: websocket\r\n") == true)
        #expect(actions[5].sentText.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(actions[5].sentText.contains("Upgrade: websocket\r\n"))
        #expect(Array(actions[5].suffix(2)) == [.armTimer(millis: 300_000), .startTunnel])
        #expect(script.machine.phase == .tunneling)
    }

    @Test func anUnparsableResponseHeadIs502() {
        var script = SessionScript()
        let actions = script.all(SessionScript.sentGet + [.responseInvalid(HTTPParseError(status: 502, reason: "bad status line"))])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 502 "))
        #expect(actions.sentText.contains("invalid response from 203.0.113.7:80: bad status line"))
        #expect(actions.contains(.abandonUpstream))
    }

    @Test func aReusedConnectionDroppedBeforeAnyResponseByteIsRetriedOnAFreshOne() {
        var script = SessionScript()
        let actions = script.run([.start, .head(Heads.get()), .resolved(["203.0.113.7"]), .pooled,
                                  .requestPumped(.complete, moved: 0), .upstreamEnded(.eof), .resolved(["203.0.113.7"]),
                                  .ready(), .requestPumped(.complete, moved: 0)])
        #expect(actions[5] == [.abandonUpstream, .resolve(host: "a.test")])
        guard case .connect(let retry) = actions[6].first else {
            Issue.record("no connect: \(actions[6])")
            return
        }
        #expect(!retry.mayReusePooled)
        #expect(actions[7].forwardedRequest?.hasPrefix("GET /x HTTP/1.1\r\n") == true)
        #expect(actions[8] == [.cancelTimer, .armResponseTimeout(millis: 60_000)])
    }

    @Test func theRetryKeepsItsFlagAndNoHeadForAnotherRetry() {
        var script = SessionScript()
        _ = script.all([.start, .head(Heads.get()), .resolved(["203.0.113.7"]), .pooled])
        guard case .forwarding(let first) = script.machine.state else {
            Issue.record("not forwarding: \(script.machine.state)")
            return
        }
        #expect(!first.retriedOnFreshConnection)
        #expect(script.machine.mayRetryOnFreshConnection)
        #expect(String(decoding: script.machine.payloads.requestHead.bytes, as: UTF8.self).hasPrefix("GET /x HTTP/1.1\r\n"))
        _ = script.all([.requestPumped(.complete, moved: 0), .upstreamEnded(.eof)])
        guard case .resolving(let outbound) = script.machine.state else {
            Issue.record("not resolving again: \(script.machine.state)")
            return
        }
        #expect(outbound.retriedOnFreshConnection)
        #expect(outbound.body == .complete)
        _ = script.all([.resolved(["203.0.113.7"]), .ready(reused: true)])
        guard case .forwarding(let retried) = script.machine.state else {
            Issue.record("not forwarding: \(script.machine.state)")
            return
        }
        #expect(retried.retriedOnFreshConnection)
        #expect(!script.machine.mayRetryOnFreshConnection)
        #expect(!retried.responseTimeoutArmed)
    }

    @Test func aResponseByteDropsTheHeadKeptForARetry() {
        var script = SessionScript()
        _ = script.all([.start, .head(Heads.get()), .resolved(["203.0.113.7"]), .pooled,
                        .requestPumped(.complete, moved: 0), .responseHead(Heads.ok())])
        guard case .forwarding(let forwarding) = script.machine.state else {
            Issue.record("not forwarding: \(script.machine.state)")
            return
        }
        #expect(!script.machine.mayRetryOnFreshConnection)
        #expect(forwarding.responseTimeoutArmed)
    }

    @Test func aRetriedRequestWhoseLookupFailsIsNotHandedToThePoolAgain() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.get()), .resolved(["203.0.113.7"]), .pooled,
                                  .requestPumped(.complete, moved: 0), .upstreamEnded(.eof), .lookupFailed(.notFound)])
        #expect(!actions.contains(.reusePooled(key: UpstreamPoolKey(scheme: .http, host: "a.test", port: 80))))
        #expect(actions.sentText.hasPrefix("HTTP/1.1 502 "))
    }

    @Test func theRetryOnAFreshConnectionHappensOnce() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.get()), .resolved(["203.0.113.7"]), .pooled,
                                  .requestPumped(.complete, moved: 0), .upstreamEnded(.eof), .resolved(["203.0.113.7"]),
                                  .ready(reused: true), .requestPumped(.complete, moved: 0), .upstreamEnded(.eof)])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 502 "))
        #expect(actions.sentText.contains("error=connection_terminated"))
    }

    @Test func aRequestWithABodyIsNeverSentTwice() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.post(length: 3)), .resolved(["203.0.113.7"]), .pooled,
                                  .requestPumped(.complete, moved: 3), .upstreamEnded(.eof)])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 502 "))
        #expect(actions.filter { if case .resolve = $0 { return true } else { return false } }.count == 1)
    }

    @Test func aFreshConnectionDroppedBeforeAnyByteCountsAgainstTheAddressForThisHost() {
        var script = SessionScript()
        let actions = script.all(SessionScript.sentGet + [.upstreamEnded(.error, "connection reset")])
        #expect(actions.contains(.recordHostFailure(reason: "connection reset before any response byte",
                                                         host: UpstreamHostKey(host: "a.test", port: 80))))
        #expect(actions.sentText.contains("203.0.113.7:80 connection reset before sending a complete response head"))
    }

    @Test func noResponseWithinTheResponseTimeoutIs504AndBlamesNoAddress() {
        var script = SessionScript()
        let actions = script.all(SessionScript.sentGet + [.upstreamEnded(.timeout, "timed out")])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 504 Gateway Timeout\r\n"))
        #expect(actions.sentText.contains("error=http_response_timeout"))
        #expect(!actions.contains { if case .recordHostFailure = $0 { return true } else { return false } })
    }

    @Test func responseBytesBeforeADropPreventTheRetry() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.get()), .resolved(["203.0.113.7"]), .pooled,
                                  .requestPumped(.complete, moved: 0), .responseIncomplete, .upstreamEnded(.eof)])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 502 "))
        #expect(actions.filter { if case .resolve = $0 { return true } else { return false } }.count == 1)
    }

    @Test func anUpstreamThatFailsMidBodyCutsTheClientWithANote() {
        var script = SessionScript()
        let actions = script.all(SessionScript.sentGet + [.responseHead(Heads.ok(length: 100)),
                                                          .responsePumped(.remaining(50), moved: 50), .upstreamEnded(.eof)])
        #expect(script.logged?.note == "upstream 203.0.113.7:80 closed mid-response")
        #expect(actions.last == .close)
    }

    @Test func brokenResponseChunkingMidBodyCutsTheClient() {
        var script = SessionScript()
        let actions = script.all(SessionScript.sentGet + [.responseHead(Heads.chunked),
                                                          .responseBroken(HTTPParseError(status: 502, reason: "bad chunk size"))])
        #expect(script.logged?.note == "invalid response body framing: bad chunk size")
        #expect(actions.last == .close)
    }

    @Test func aFullClientOutputPausesTheUpstream() {
        var script = SessionScript()
        let actions = script.run(SessionScript.sentGet + [.responseHead(Heads.ok(length: 1 << 30)),
                                                          .buffers(BufferLevels(clientOutput: SessionRules.outputHighWater)),
                                                          .responsePumped(.remaining(1 << 29), moved: 1 << 29)])
        #expect(actions[7] == [.pauseReading(.upstream)])
    }

    @Test func theFirstByteTimeIsRecordedOnlyWhereTheHostHasSeveralAddresses() {
        var several = SessionScript()
        let ranked = several.run([.start, .head(Heads.get()), .resolved(["203.0.113.7", "203.0.113.8"]), .ready(),
                                  .requestPumped(.complete, moved: 0), .wait(millis: 7), .responseHead(Heads.ok())])
        #expect(ranked[6].first == .recordFirstByte(micros: 7000, host: UpstreamHostKey(host: "a.test", port: 80)))
        var single = SessionScript()
        let unranked = single.all(SessionScript.sentGet + [.wait(millis: 7), .responseHead(Heads.ok())])
        #expect(!unranked.contains { if case .recordFirstByte = $0 { return true } else { return false } })
    }

    @Test func aClientThatDrainedResumesTheUpstreamAndTheBodyMovesOn() {
        var script = SessionScript()
        let actions = script.run(SessionScript.sentGet + [.responseHead(Heads.ok(length: 100)), .drained(.client)])
        #expect(actions[6] == [.resumeReading(.upstream), .pumpResponseBody])
    }

    @Test func anUpstreamThatDrainedResumesTheClientAndTheUploadMovesOn() {
        var script = SessionScript()
        let actions = script.run([.start, .head(Heads.post(length: 100)), .resolved(["203.0.113.7"]), .ready(),
                                  .drained(.upstream)])
        #expect(actions[4] == [.resumeReading(.client), .pumpRequestBody])
    }

    @Test func aClientThatHalfClosesAfterItsRequestStillGetsTheAnswerThenTheConnectionCloses() {
        var script = SessionScript()
        let actions = script.run(SessionScript.sentGet + [.clientFIN, .responseHead(Heads.ok()), .responsePumped(.complete, moved: 5)])
        #expect(actions[5] == [.pumpRequestBody])
        #expect(actions[6].forwardedResponse?.contains("Connection: close\r\n") == true)
        #expect(Array(actions[7].suffix(2)) == [.cancelTimer, .flushClient])
    }

    @Test func aContinueForAnUploadThatWaitsForItReachesTheClientBeforeTheBody() {
        var script = SessionScript()
        let head = "POST http://a.test/upload HTTP/1.1\r\nHost: a.test\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n"
        let actions = script.run([.start, .head(head), .resolved(["203.0.113.7"]), .ready(),
                                  .requestPumped(.remaining(4), moved: 0),
                                  .responseHead("HTTP/1.1 100 Continue\r\n\r\n"),
                                  .requestPumped(.complete, moved: 4), .responseHead(Heads.ok(length: 0)),
                                  .responsePumped(.complete, moved: 0)])
        #expect(actions[3].forwardedRequest?.contains("Expect: 100-continue\r\n") == true)
        #expect(actions[5].sentText == "HTTP/1.1 100 Continue\r\nVia: 1.1 ipdirect\r\n\r\n")
        #expect(actions[6] == [.cancelTimer, .armResponseTimeout(millis: 60_000)])
        #expect(script.logged(at: 8)?.status == 200)
        #expect(actions[8].last == .readNextRequest)
    }

    @Test func pipelinedRequestsAreAnsweredOneAfterAnotherOnTheSameConnection() {
        var script = SessionScript()
        let first = script.all(SessionScript.sentGet + [.buffers(BufferLevels(clientInput: 60)),
                                                        .responseHead(Heads.ok()), .responsePumped(.complete, moved: 5)])
        #expect(first.last == .readNextRequest)
        let firstLogged = script.logged
        #expect(firstLogged?.status == 200)
        let second = script.run([.buffers(BufferLevels()), .head(Heads.get("http://a.test/y")), .resolved(["203.0.113.7"]),
                                 .pooled, .requestPumped(.complete, moved: 0), .responseHead(Heads.ok()),
                                 .responsePumped(.complete, moved: 5)])
        #expect(second[1] == [.cancelTimer, .resolve(host: "a.test")])
        #expect(second[3].forwardedRequest?.hasPrefix("GET /y HTTP/1.1\r\n") == true)
        #expect(script.logged(at: 6)?.source == "pool")
        #expect(script.loggedRequest(at: 6)?.method == "GET")
        #expect(firstLogged != script.logged(at: 6))
        // The second exchange's record starts anew: its bytes are its own head and response only.
        #expect(script.logged(at: 6)?.bytesFromClient == UInt64(Heads.get("http://a.test/y").utf8.count))
        #expect(script.logged(at: 6)?.bytesToClient == firstLogged?.bytesToClient)
    }

    @Test func aClientThatStopsReadingIsCutAtTheWriteTimeout() {
        var script = SessionScript()
        let actions = script.all(SessionScript.sentGet + [.responseHead(Heads.ok(length: 1 << 20)),
                                                          .clientError("timed out")])
        #expect(script.logged?.note == "client timed out during streaming_response")
        #expect(actions.last == .close)
    }
}

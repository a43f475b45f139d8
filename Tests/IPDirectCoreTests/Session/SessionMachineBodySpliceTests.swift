import Testing
@testable import IPDirectCore

/// When a body leaves the buffers for a splice (socket to pipe to socket), and what flow control then
/// leaves to it.
@Suite struct SessionMachineBodySpliceTests {
    static let length = 1_000_000
    static let sentLongResponseHead = SessionScript.sentGet + [.responseHead(Heads.ok(length: length))]

    @Test func aLongResponseBodyIsSplicedOnceNothingOfItIsBuffered() {
        var script = SessionScript()
        let actions = script.all(Self.sentLongResponseHead + [.responsePumped(.remaining(996_000), moved: 4_000)])
        #expect(actions.last == .spliceBody(from: .upstream, limit: 996_000))
        #expect(script.machine.phase == .streamingResponse)
    }

    @Test func bytesWaitingForTheClientKeepTheBodyInTheBuffersUntilTheyAreWritten() {
        var script = SessionScript()
        let actions = script.run(Self.sentLongResponseHead + [
            .buffers(BufferLevels(clientOutput: 4_000)), .responsePumped(.remaining(996_000), moved: 4_000),
            .buffers(BufferLevels(upstreamInput: 100)), .responsePumped(.remaining(996_000), moved: 0),
            .buffers(BufferLevels()), .responsePumped(.remaining(996_000), moved: 0),
        ])
        #expect(actions[7] == [])
        #expect(actions[9] == [])
        #expect(actions[11] == [.spliceBody(from: .upstream, limit: 996_000)])
    }

    @Test(arguments: [
        ("a body shorter than a pipe", Heads.ok(length: 60_000), BodyProgress.remaining(60_000), false),
        ("a chunked body", Heads.chunked, BodyProgress.chunked(ChunkedBodyScanner()), false),
        ("a TLS upstream", Heads.ok(length: 1_000_000), BodyProgress.remaining(1_000_000), true),
    ])
    func theseBodiesStayInTheBuffers(_ what: String, head: String, progress: BodyProgress, tls: Bool) {
        var script = SessionScript()
        let actions = script.run([.start, .head(Heads.get()), .resolved(["203.0.113.7"]), .ready(tls: tls),
                                  .requestPumped(.complete, moved: 0), .responseHead(head), .responsePumped(progress, moved: 0)])
        #expect(actions[6] == [], "\(what)")
    }

    @Test func withoutPipesNothingIsSpliced() {
        var script = SessionScript { $0.proxy.maxPipes = 0 }
        let actions = script.all(Self.sentLongResponseHead + [.responsePumped(.remaining(996_000), moved: 4_000)])
        #expect(!actions.contains { if case .spliceBody = $0 { return true } else { return false } })
    }

    @Test func whileTheBodyIsSplicedTheClientsDrainedOutputLeavesTheUpstreamToTheSplice() {
        var script = SessionScript()
        let actions = script.run(Self.sentLongResponseHead + [.responsePumped(.remaining(996_000), moved: 4_000),
                                                              .drained(.client),
                                                              .responsePumped(.remaining(500_000), moved: 496_000)])
        #expect(actions[7] == [])
        #expect(actions[8] == [])
    }

    @Test func theSplicedBodysLastBytesFinishTheExchangeAndPoolTheConnection() {
        var script = SessionScript()
        let actions = script.run(Self.sentLongResponseHead + [.responsePumped(.remaining(996_000), moved: 4_000),
                                                              .responsePumped(.remaining(500_000), moved: 496_000),
                                                              .responsePumped(.complete, moved: 500_000)])
        #expect(actions[8].contains(.releaseUpstream(reusable: true)))
        #expect(actions[8].last == .readNextRequest)
        #expect((script.logged(at: 8)?.bytesToClient ?? 0) >= UInt64(Self.length))
        #expect(script.machine.phase == .readingHead)
    }

    @Test func aBodyUntilCloseIsSplicedUntilTheServersFIN() {
        var script = SessionScript()
        let actions = script.run(SessionScript.sentGet + [.responseHead(Heads.untilClose),
                                                          .responsePumped(.untilClose, moved: 0),
                                                          .responsePumped(.untilClose, moved: 70_000),
                                                          .upstreamEnded(.eof),
                                                          .responsePumped(.untilClose, moved: 0)])
        #expect(actions[6] == [.spliceBody(from: .upstream, limit: nil)])
        #expect(actions[7] == [])
        #expect(actions[8] == [.pumpResponseBody])
        #expect(actions[9].contains(.releaseUpstream(reusable: false)))
        #expect(actions[9].last == .flushClient)
    }

    @Test func aFINBeforeTheSplicedBodysEndCutsTheConnection() {
        var script = SessionScript()
        let actions = script.all(Self.sentLongResponseHead + [.responsePumped(.remaining(996_000), moved: 4_000),
                                                              .upstreamEnded(.eof)])
        #expect(actions.last == .close)
        #expect(script.logged?.note.contains("mid-response") == true)
    }

    @Test func aLongRequestBodyIsSplicedAndItsEndArmsTheResponseTimeout() {
        var script = SessionScript()
        let actions = script.run([.start, .head(Heads.post(length: 10_000_000)), .resolved(["203.0.113.7"]), .ready(),
                                  .requestPumped(.remaining(9_999_000), moved: 1_000),
                                  .drained(.upstream),
                                  .requestPumped(.complete, moved: 9_999_000),
                                  .drained(.upstream)])
        #expect(actions[4].last == .spliceBody(from: .client, limit: 9_999_000))
        #expect(actions[5] == [])
        #expect(actions[6].contains(.armResponseTimeout(millis: 60_000)))
        #expect(actions[7] == [.resumeReading(.client), .pumpRequestBody])
    }

    @Test func aClientThatSentItsFINKeepsItsRequestBodyInTheBuffers() {
        var script = SessionScript()
        let actions = script.run([.start, .head(Heads.post(length: 10_000_000)), .resolved(["203.0.113.7"]), .ready(),
                                  .buffers(BufferLevels(clientInput: 1)), .clientFIN, .buffers(BufferLevels()),
                                  .requestPumped(.remaining(9_999_000), moved: 1_000)])
        #expect(!actions[7].contains { if case .spliceBody = $0 { return true } else { return false } })
    }

    @Test func progressAfterPassingCountsDownAContentLengthAndLeavesAnUntilCloseBody() {
        #expect(BodyProgress.remaining(10).afterPassing(4) == .remaining(6))
        #expect(BodyProgress.remaining(10).afterPassing(10) == .complete)
        #expect(BodyProgress.untilClose.afterPassing(10) == .untilClose)
    }
}

import Testing
@testable import IPDirectCore

/// How connections end: deadlines, lingering close, client EOFs and errors, draining.
@Suite struct SessionMachineClosingTests {
    @Test func aHeadNotCompleteWithinTheHeaderTimeoutIs408() {
        var script = SessionScript()
        let actions = script.all([.start, .buffers(BufferLevels(clientInput: 12)), .wait(millis: 10_000), .timer])
        #expect(actions.contains(.reportTimeout(.header)))
        #expect(actions.sentText.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        #expect(script.machine.phase == .flushing)
    }

    @Test func aConnectionThatNeverSentAByteClosesSilentlyAtTheHeaderTimeout() {
        var script = SessionScript()
        let actions = script.all([.start, .wait(millis: 10_000), .timer])
        #expect(actions.sentText.isEmpty)
        #expect(Array(actions.suffix(2)) == [.reportTimeout(.header), .close])
    }

    @Test func anIdleKeepAliveConnectionClosesAtTheClientIdleTimeout() {
        var script = SessionScript()
        let actions = script.run(SessionScript.sentGet + [.responseHead(Heads.ok()), .responsePumped(.complete, moved: 5),
                                                          .wait(millis: 60_000), .timer])
        #expect(actions[8] == [.reportTimeout(.clientIdle), .close])
    }

    @Test func anAnswerStillBeingWrittenIsNotIdle() {
        var script = SessionScript()
        let actions = script.run(SessionScript.sentGet + [.responseHead(Heads.ok()), .responsePumped(.complete, moved: 5),
                                                          .buffers(BufferLevels(clientOutput: 4096)), .wait(millis: 60_000), .timer])
        #expect(actions[9] == [.armTimer(millis: 60_000)])
        #expect(script.machine.phase == .readingHead)
    }

    @Test func aTimerThatFiresBeforeTheDeadlineAsksForTheRest() {
        var script = SessionScript()
        let actions = script.run([.start, .wait(millis: 4_000), .timer])
        #expect(actions[2] == [.armTimer(millis: 6_001)])
    }

    @Test func aClosingConnectionFlushesThenShutsItsWriteSideAndLingers() {
        var script = SessionScript()
        let actions = script.run([.start, .invalidHead(HTTPParseError(status: 400, reason: "bad")), .drained(.client),
                                  .unreadCounted(0), .wait(millis: SessionRules.lingerMillis), .timer])
        #expect(Array(actions[1].suffix(2)) == [.cancelTimer, .flushClient])
        #expect(actions[2] == [.countUnreadClientInput])
        #expect(actions[3] == [.shutWrite(.client), .discardClientInput, .resumeReading(.client),
                               .armTimer(millis: SessionRules.lingerMillis)])
        #expect(actions[5] == [.close])
    }

    static let closingGet: [SessionScript.Event] = [
        .start, .head(Heads.get(fields: "Connection: close\r\n")), .resolved(["203.0.113.7"]), .ready(),
        .requestPumped(.complete, moved: 0), .responseHead(Heads.ok()), .responsePumped(.complete, moved: 5),
    ]

    @Test func aClientThatAskedToCloseIsClosedAtOnceWhenItsAnswerIsOut() {
        var script = SessionScript()
        let actions = script.run(Self.closingGet + [.drained(.client), .unreadCounted(0)])
        #expect(actions[6].last == .flushClient)
        #expect(actions[7] == [.countUnreadClientInput])
        #expect(actions[8] == [.close])
    }

    @Test func aClientThatAskedToCloseButSentMoreIsLingeredFor() {
        var script = SessionScript()
        let actions = script.run(Self.closingGet + [.buffers(BufferLevels(clientInput: 20)), .drained(.client), .unreadCounted(0)])
        #expect(actions[9].first == .shutWrite(.client))
    }

    @Test func aClientThatAskedToCloseWithBytesUnreadInTheKernelIsLingeredFor() {
        var script = SessionScript()
        let actions = script.run(Self.closingGet + [.drained(.client), .unreadCounted(20)])
        #expect(actions[8].first == .shutWrite(.client))
    }

    @Test func unreadBytesAreCountedOnlyOnceTheAnswerIsOut() {
        var script = SessionScript()
        let actions = script.run(Self.closingGet + [.buffers(BufferLevels(clientOutput: 512)), .drained(.client),
                                                    .unreadCounted(0)])
        #expect(actions[8] == [])
        #expect(actions[9] == [])
        #expect(script.machine.phase == .flushing)
    }

    @Test func anErrorAnswerToAClientThatAskedToCloseClosesAtOnce() {
        var script = SessionScript()
        let failure = ProxyError(status: 502, kind: .connectionRefused, details: "refused")
        let actions = script.run([.start, .head(Heads.get(fields: "Connection: close\r\n")), .resolved(["203.0.113.7"]),
                                  .connectFailed(failure, attempts: 1), .drained(.client), .unreadCounted(0)])
        #expect(actions[5] == [.close])
    }

    @Test func aKeptAliveClientClosedByTheProxyIsLingeredFor() {
        var script = SessionScript(draining: true)
        let actions = script.run([.start, .head(Heads.get()), .resolved(["203.0.113.7"]), .ready(),
                                  .requestPumped(.complete, moved: 0), .responseHead(Heads.ok()),
                                  .responsePumped(.complete, moved: 5), .drained(.client), .unreadCounted(0)])
        #expect(actions[8].first == .shutWrite(.client))
    }

    @Test func theClientsFINEndsTheLingerEarly() {
        var script = SessionScript()
        let actions = script.run([.start, .invalidHead(HTTPParseError(status: 400, reason: "bad")), .drained(.client),
                                  .unreadCounted(0), .clientFIN])
        #expect(actions[4] == [.close])
    }

    @Test func aClientThatClosedFirstIsNotLingeredFor() {
        var script = SessionScript()
        let actions = script.run([.start, .clientFIN, .drained(.client), .unreadCounted(0)])
        #expect(actions[1] == [.cancelTimer, .flushClient])
        #expect(actions[3] == [.close])
    }

    @Test func anAnswerStillQueuedIsNotCutByLingering() {
        var script = SessionScript()
        let actions = script.run([.start, .invalidHead(HTTPParseError(status: 400, reason: "bad")),
                                  .buffers(BufferLevels(clientOutput: 100)), .drained(.client)])
        #expect(actions[3] == [])
        #expect(script.machine.phase == .flushing)
    }

    @Test func aClientErrorClosesAndNamesThePhase() {
        var script = SessionScript()
        let actions = script.all([.start, .head(Heads.get()), .clientError("connection reset")])
        #expect(script.logged?.note == "client connection reset during resolving")
        #expect(actions.last == .close)
    }

    @Test func aClientFINWhileTheLookupRunsWaitsForTheAnswer() {
        var script = SessionScript()
        let actions = script.run([.start, .head(Heads.get()), .clientFIN])
        #expect(actions[2] == [])
        #expect(script.machine.phase == .resolving)
    }

    @Test func aClientFINWithAPipelinedRequestBufferedReadsIt() {
        var script = SessionScript()
        let actions = script.run([.start, .buffers(BufferLevels(clientInput: 40)), .clientFIN])
        #expect(actions[2] == [.readNextRequest])
    }

    @Test(arguments: [(0, true), (7, false)])
    func anIncompleteHeadAfterTheClientsFINEnds(buffered: Int, flushes: Bool) {
        var script = SessionScript()
        let actions = script.run([.start, .buffers(BufferLevels(clientInput: buffered)), .clientFIN, .headIncomplete])
        let last = actions.last ?? []
        if flushes {
            #expect(actions[2] == [.cancelTimer, .flushClient])
        } else {
            #expect(last == [.close])
        }
    }

    @Test func drainingClosesAnIdleConnectionAtOnce() {
        var script = SessionScript()
        let actions = script.run(SessionScript.sentGet + [.responseHead(Heads.ok()), .responsePumped(.complete, moved: 5), .drain])
        #expect(actions[7] == [.close])
    }

    @Test func drainingLetsTheExchangeInFlightFinishThenCloses() {
        var script = SessionScript()
        let actions = script.run(SessionScript.sentGet + [.drain, .responseHead(Heads.ok()), .responsePumped(.complete, moved: 5)])
        #expect(actions[5] == [])
        #expect(actions[7].contains(.releaseUpstream(reusable: true)))
        #expect(Array(actions[7].suffix(2)) == [.cancelTimer, .flushClient])
    }

    @Test func drainingSparesAConnectionWithAnAnswerStillToWrite() {
        var script = SessionScript()
        let actions = script.run([.start, .buffers(BufferLevels(clientOutput: 10)), .drain])
        #expect(actions[2] == [])
    }

    @Test func aConnectionAcceptedWhileDrainingClosesAfterItsFirstAnswer() {
        var script = SessionScript(draining: true)
        let actions = script.all(SessionScript.sentGet + [.responseHead(Heads.ok()), .responsePumped(.complete, moved: 5)])
        #expect(Array(actions.suffix(2)) == [.cancelTimer, .flushClient])
    }

    @Test func closingLogsTheExchangeInFlightOnce() {
        var script = SessionScript()
        let actions = script.run(SessionScript.sentGet + [.close, .close, .timer, .clientFIN])
        #expect(script.loggedRequest(at: 5)?.host == "a.test")
        #expect(actions[5].last == .close)
        #expect(actions[6...].allSatisfy { $0.isEmpty })
    }

    @Test func lateAnswersToAnAbandonedExchangeAreIgnored() {
        var script = SessionScript()
        let actions = script.run([.start, .head(Heads.get()), .close, .resolved(["203.0.113.7"]), .ready(),
                                  .responseHead(Heads.ok())])
        #expect(actions[3...].allSatisfy { $0.isEmpty })
    }
}

import Testing
@testable import IPDirectCore

/// A kept-alive connection that stays idle with nothing buffered either way parks between requests, and
/// only then.
@Suite struct SessionMachineParkingTests {
    /// A GET answered in full on a kept-alive connection: the machine is reading the next head.
    static let answered: [SessionScript.Event] = SessionScript.sentGet + [.responseHead(Heads.ok()),
                                                                          .responsePumped(.complete, moved: 5)]
    static let parkAfter = SessionRules.parkAfterMillis
    /// The rest of the 60 s idle window once the timer fired to park.
    static let idleLeft = 60_000 - parkAfter + 1
    static let parked: [SessionScript.Event] = answered + [.wait(millis: parkAfter), .timer]

    @Test func anIdleKeepAliveConnectionParksWhenTheTimerFirstFires() {
        var script = SessionScript()
        let actions = script.run(Self.parked)
        #expect(actions[6].contains(.armTimer(millis: Self.parkAfter)))
        #expect(actions.last == [.park(idleMillis: Self.idleLeft)])
        #expect(script.machine.phase == .parked)
    }

    @Test func aShortIdleTimeoutIsNotOutlivedByTheWaitToPark() {
        var script = SessionScript { $0.proxy.clientIdleTimeoutMs = 20 }
        let actions = script.run(Self.answered)
        #expect(actions[6].contains(.armTimer(millis: 20)))
    }

    @Test func pipelinedBytesKeepTheConnectionFromParking() {
        var script = SessionScript()
        let actions = script.run(Self.answered + [.buffers(BufferLevels(clientInput: 30)), .wait(millis: Self.parkAfter), .timer])
        #expect(actions.last == [.armTimer(millis: Self.idleLeft)])
        #expect(script.machine.phase == .readingHead)
    }

    @Test func anAnswerStillBeingWrittenKeepsItsBuffersUntilItIsOut() {
        var script = SessionScript()
        let actions = script.run(Self.answered + [.buffers(BufferLevels(clientOutput: 4096)), .wait(millis: Self.parkAfter), .timer,
                                                  .buffers(BufferLevels()), .wait(millis: Self.parkAfter), .timer])
        #expect(actions[actions.count - 4] == [.armTimer(millis: Self.parkAfter)])
        #expect(actions.last == [.park(idleMillis: Self.idleLeft - Self.parkAfter)])
        #expect(script.machine.phase == .parked)
    }

    @Test func aConnectionWaitingForTheRestOfAHeadDoesNotPark() {
        var script = SessionScript()
        let actions = script.run([.start, .wait(millis: Self.parkAfter), .timer])
        #expect(actions.last == [.armTimer(millis: 10_000 - Self.parkAfter + 1)])
        #expect(script.machine.phase == .readingHead)
    }

    @Test func aParkedConnectionReadsItsNextRequestWhenBytesCome() {
        var script = SessionScript()
        let actions = script.run(Self.parked + [.readable, .requestBegan])
        #expect(actions[actions.count - 2] == [.armTimer(millis: Self.idleLeft), .readNextRequest])
        #expect(actions.last == [.armTimer(millis: 10_000)])
        #expect(script.machine.phase == .readingHead)
    }

    @Test func aParkedConnectionClosesAtTheClientIdleTimeout() {
        var script = SessionScript()
        let actions = script.run(Self.parked + [.wait(millis: Self.idleLeft), .timer])
        #expect(actions.last == [.reportTimeout(.clientIdle), .close])
    }

    @Test func aTimerThatFiresEarlyKeepsTheConnectionParked() {
        var script = SessionScript()
        let actions = script.run(Self.parked + [.wait(millis: 1_000), .timer])
        #expect(actions.last == [.armTimer(millis: Self.idleLeft - 1_000)])
        #expect(script.machine.phase == .parked)
    }

    @Test func aParkedConnectionClosesAtOnceWhenTheDaemonDrains() {
        var script = SessionScript()
        let actions = script.run(Self.parked + [.drain])
        #expect(actions.last == [.close])
    }

    @Test func aDrainingDaemonDoesNotParkConnections() {
        var script = SessionScript()
        let actions = script.run(Self.answered + [.buffers(BufferLevels(clientInput: 30)), .drain,
                                                  .buffers(BufferLevels()), .wait(millis: Self.parkAfter), .timer])
        #expect(actions.last == [.armTimer(millis: Self.idleLeft)])
        #expect(script.machine.phase == .readingHead)
    }

    @Test func aParkedClientsFINClosesTheConnection() {
        var script = SessionScript()
        let actions = script.run(Self.parked + [.clientFIN])
        #expect(actions.last == [.cancelTimer, .flushClient])
        #expect(script.machine.phase == .flushing)
    }
}

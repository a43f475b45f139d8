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
        let shortIdle = Self.parkAfter / 2
        var script = SessionScript { $0.proxy.clientIdleTimeoutMs = shortIdle }
        let actions = script.run(Self.answered)
        #expect(actions[6].contains(.armTimer(millis: shortIdle)))
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

/// A parked machine kept in its reduced form behaves as the whole machine would.
@Suite struct ParkedSessionTests {
    static let parkAfter = SessionRules.parkAfterMillis

    /// The script's machine parked, and a copy rebuilt from its reduced form under the same rules.
    static func parkedPair(clientPermitted: Bool = true, requiresAuthentication: Bool = false) -> (SessionScript, SessionScript) {
        var script = SessionScript(clientPermitted: clientPermitted, requiresAuthentication: requiresAuthentication)
        _ = script.run(SessionMachineParkingTests.parked)
        var rebuilt = script
        rebuilt.machine = SessionMachine(rules: script.machine.rules, parked: script.machine.parked!)
        return (script, rebuilt)
    }

    @Test(arguments: [
        [SessionScript.Event.wait(millis: 1_000), .timer],
        [.wait(millis: 60_000), .timer],
        [.drain],
        [.clientFIN],
        [.readable, .requestBegan, .head("GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n")],
        [.readable, .wait(millis: 10_001), .timer],
        // A SOCKS version byte after an HTTP request is not a SOCKS client: the connection chose HTTP.
        [.readable, .socksVersion(5)],
    ])
    func aRebuiltParkedMachineAnswersEveryEventAsTheWholeOneDoes(events: [SessionScript.Event]) {
        var (whole, rebuilt) = Self.parkedPair()
        #expect(rebuilt.run(events) == whole.run(events))
        #expect(rebuilt.machine.phase == whole.machine.phase)
    }

    static let request: [SessionScript.Event] = [.readable, .requestBegan,
                                                 .head("GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n")]

    /// The bytes the machine sends its client, in order.
    static func sent(_ actions: [[SessionScript.Action]]) -> [UInt8] {
        actions.flatMap { $0 }.flatMap { action -> [UInt8] in
            if case .sendToClient(let bytes) = action { return bytes }
            return []
        }
    }

    @Test func aRebuiltMachineStillKnowsItsClientMustLogIn() {
        var (whole, rebuilt) = Self.parkedPair(requiresAuthentication: true)
        let answer = Self.sent(rebuilt.run(Self.request))
        #expect(answer == Self.sent(whole.run(Self.request)))
        #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 407 "))
    }

    @Test func aRebuiltMachineStillRefusesAClientOutsideTheList() {
        var whole = SessionScript(clientPermitted: false)
        // No answer leaves such a client parked today (its refusal closes the connection); parked by hand so
        // that the reduced form is shown to carry the refusal all the same.
        whole.machine.state = .parked
        var rebuilt = whole
        rebuilt.machine = SessionMachine(rules: whole.machine.rules, parked: whole.machine.parked!)
        let answer = Self.sent(rebuilt.run(Self.request))
        #expect(answer == Self.sent(whole.run(Self.request)))
        #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 403 "))
    }

    @Test func onlyAParkedMachineHasAReducedForm() {
        var script = SessionScript()
        _ = script.run(SessionMachineParkingTests.answered)
        #expect(script.machine.parked == nil)
        _ = script.run([.wait(millis: Self.parkAfter), .timer])
        #expect(script.machine.parked != nil)
        _ = script.run([.drain])
        #expect(script.machine.parked == nil)
    }
}

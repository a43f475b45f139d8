import Testing
@testable import IPDirectCore

/// CONNECT tunnels: the 200, the relay's flow control, half-close and the end of the tunnel.
@Suite struct SessionMachineTunnelTests {
    @Test func aConnectIsAnsweredAndTheTunnelStarts() {
        var script = SessionScript()
        let actions = script.run(SessionScript.openTunnel)
        #expect(actions[3] == [.sendToClient(Array("HTTP/1.1 200 Connection Established\r\n\r\n".utf8)),
                               .armTimer(millis: 300_000), .startTunnel])
        #expect(script.machine.phase == .tunneling)
    }

    @Test func relayedBytesAreCountedForTheLog() {
        var script = SessionScript()
        let actions = script.all(SessionScript.openTunnel + [.relayed(.client, 100), .relayed(.upstream, 2000), .close])
        #expect(script.logged?.bytesFromClient == UInt64(Heads.connect.utf8.count) + 100)
        #expect(script.logged?.bytesToClient == 39 + 2000)
        #expect(script.logged?.status == 200)
    }

    @Test func aFullDestinationPausesTheSide() {
        var script = SessionScript()
        let actions = script.run(SessionScript.openTunnel + [.buffers(BufferLevels(clientOutput: SessionRules.outputHighWater)),
                                                             .relayed(.upstream, 4096)])
        #expect(actions[5] == [.pauseReading(.upstream)])
    }

    @Test func theClientsFINReachesTheUpstreamOnceItsOutputIsWritten() {
        var script = SessionScript()
        let actions = script.run(SessionScript.openTunnel + [.clientFIN, .buffers(BufferLevels(upstreamOutput: 10)),
                                                             .relayed(.client, 10), .buffers(BufferLevels()), .drained(.upstream)])
        #expect(actions[4] == [.relay(from: .client)])
        #expect(actions[6] == [])
        #expect(actions[8] == [.shutWrite(.upstream)])
        #expect(script.machine.phase == .tunneling)
    }

    @Test func theUpstreamsFINReachesTheClient() {
        var script = SessionScript()
        let actions = script.run(SessionScript.openTunnel + [.upstreamEnded(.eof), .relayed(.upstream, 0)])
        #expect(actions[4] == [.relay(from: .upstream)])
        #expect(actions[5] == [.shutWrite(.client)])
    }

    @Test func bothFINsPassedOnEndTheTunnel() {
        var script = SessionScript()
        let actions = script.run(SessionScript.openTunnel + [.clientFIN, .relayed(.client, 0), .upstreamEnded(.eof),
                                                             .relayed(.upstream, 0)])
        #expect(actions[5] == [.shutWrite(.upstream)])
        #expect(actions[7].first == .shutWrite(.client))
        #expect(script.logged(at: 7) != nil)
        #expect(actions[7].last == .close)
    }

    @Test func aTLSUpstreamIsNotSentAFINThatWouldCutItsRecordStream() {
        var script = SessionScript()
        let actions = script.run([.start, .head(Heads.connect), .resolved(["203.0.113.7"]), .ready(tls: true),
                                  .clientFIN, .relayed(.client, 0)])
        #expect(actions[5] == [])
    }

    @Test func anUpstreamErrorEndsTheTunnelWithANote() {
        var script = SessionScript()
        let actions = script.all(SessionScript.openTunnel + [.upstreamEnded(.error, "connection reset")])
        #expect(script.logged?.note == "upstream 203.0.113.7:80 connection reset")
        #expect(actions.last == .close)
    }

    @Test func aTunnelWithoutTrafficEndsAtTheTunnelIdleTimeout() {
        var script = SessionScript()
        let actions = script.run(SessionScript.openTunnel + [.wait(millis: 200_000), .relayed(.client, 1),
                                                             .wait(millis: 100_000), .timer, .wait(millis: 200_001), .timer])
        #expect(actions[7] == [.armTimer(millis: 200_001)])
        #expect(actions[9].first == .reportTimeout(.tunnelIdle))
        #expect(script.logged(at: 9)?.note == "tunnel_idle_timeout")
        #expect(actions[9].last == .close)
    }

    @Test func activityInTheKernelRelayKeepsTheTunnelAlive() {
        var script = SessionScript()
        _ = script.all(SessionScript.openTunnel + [.wait(millis: 299_000)])
        script.machine.noteActivity(now: script.now)
        let actions = script.all([.wait(millis: 1000), .timer])
        #expect(actions == [.armTimer(millis: 299_001)])
    }

    @Test func aFailedKernelRelayIsNoted() {
        var script = SessionScript()
        let actions = script.all(SessionScript.openTunnel + [.spliceEnded("read failed: Connection reset by peer")])
        #expect(script.logged?.note == "tunnel read failed: Connection reset by peer")
        #expect(actions.last == .close)
    }

    @Test func aKernelRelayThatEndedCleanlyClosesWithoutANote() {
        var script = SessionScript()
        let actions = script.all(SessionScript.openTunnel + [.spliceEnded(nil)])
        #expect(script.logged?.note == "")
        #expect(actions.last == .close)
    }

    @Test func drainingLeavesAnOpenTunnelAlone() {
        var script = SessionScript()
        let actions = script.run(SessionScript.openTunnel + [.drain])
        #expect(actions[4] == [])
        #expect(script.machine.phase == .tunneling)
    }

    @Test func aTunnelWhoseBuffersAreEmptyMovesToTheKernel() {
        var script = SessionScript()
        let actions = script.run(SessionScript.openTunnel + [.relayed(.client, 0), .relayed(.upstream, 0), .startRelayed])
        #expect(actions.last == [.spliceTunnel])
    }

    @Test func aTunnelStaysInTheBuffersWhenItMayNotSplice() {
        var pipesOffAtAccept = SessionScript { $0.proxy.maxPipes = 0 }
        #expect(pipesOffAtAccept.run(SessionScript.openTunnel + [.startRelayed]).last == [])

        var bytesBuffered = SessionScript()
        #expect(bytesBuffered.run(SessionScript.openTunnel + [.buffers(BufferLevels(upstreamOutput: 517)), .startRelayed]).last == [])

        var tlsUpstream = SessionScript()
        #expect(tlsUpstream.run([.start, .head(Heads.connect), .resolved(["203.0.113.7"]), .ready(tls: true), .startRelayed])
            .last == [])

        var clientClosed = SessionScript()
        #expect(clientClosed.run(SessionScript.openTunnel + [.clientFIN, .startRelayed]).last == [])
    }

    static let spliced: [SessionScript.Event] = SessionScript.openTunnel + [.startRelayed]

    @Test func afterTheHandOverTheMachinePassesEachFINOnAndEndsTheTunnel() {
        var script = SessionScript()
        let actions = script.run(Self.spliced + [.spliced(.toUpstream, 100), .spliced(.toUpstream, 0, closed: true),
                                                 .spliced(.toClient, 2_000, closed: true)])
        #expect(actions[5] == [])
        #expect(actions[6] == [.shutWrite(.upstream)])
        #expect(actions[7].first == .shutWrite(.client) && actions[7].last == .close)
        #expect(script.logged(at: 7)?.bytesFromClient == UInt64(Heads.connect.utf8.count) + 100)
        #expect(script.logged(at: 7)?.bytesToClient == 39 + 2_000)
    }

    @Test func splicedBytesHoldTheIdleDeadlineOffAndSilenceEndsTheTunnel() {
        var script = SessionScript()
        let idle = 300_000
        let actions = script.run(Self.spliced + [.wait(millis: idle - 1_000), .spliced(.toClient, 10), .wait(millis: 1_000),
                                                 .timer, .wait(millis: idle), .timer])
        #expect(script.logged(at: 8) == nil && !actions[8].contains(.close), "bytes a second ago: not idle")
        #expect(actions[10].last == .close, "then \(idle) ms without a byte")
        #expect(script.machine.phase == .closed)
    }

    @Test func aFailedDirectionEndsTheSplicedTunnelWithItsReason() {
        var script = SessionScript()
        let actions = script.run(Self.spliced + [.spliceEnded("write failed on the client side: Broken pipe")])
        #expect(script.logged(at: 5)?.note.contains("Broken pipe") == true)
        #expect(actions[5].last == .close)
    }
}

import Testing
@testable import IPDirectCore

/// The record the machine keeps of the exchange in flight, as its log action hands it over.
@Suite struct ExchangeRecordTests {
    @Test func theLoggedRecordHasTheExchangesTimingsBytesAndStatus() {
        var script = SessionScript()
        let head = Heads.get()
        let actions = script.all([.start, .head(head), .wait(millis: 2), .resolved(["203.0.113.7", "203.0.113.8"]),
                                  .wait(millis: 3), .ready(attempts: 2), .wait(millis: 1),
                                  .requestPumped(.complete, moved: 0), .wait(millis: 4),
                                  .responseHead(Heads.ok(length: 5)), .responsePumped(.complete, moved: 5)])
        let start = SessionScript.startMicros
        var expected = ExchangeRecord(bytesFromClient: UInt64(head.utf8.count))
        expected.source = "hosts"
        expected.upstreamAddress = SessionScript.address
        expected.status = 200
        expected.resolveStartMicros = start
        expected.resolveMicros = 2000
        expected.resolveFinished = true
        expected.connectStartMicros = start + 2000
        expected.connectMicros = 3000
        expected.connectFinished = true
        expected.connectAttempts = 2
        expected.addressRank = 1
        expected.requestSentMicros = start + 6000
        expected.firstByteMicros = 10_000
        expected.bytesToClient = UInt64(actions.forwardedResponse?.utf8.count ?? 0) + 5
        #expect(script.logged == expected)
        #expect(script.loggedRequest == ProxyRequest(method: "GET", methodKind: .get, host: "a.test", port: 80,
                                                      isConnect: false, keepAlive: true, upgradeRequested: false,
                                                      clientVersion: .http11, startMicros: start))
        // Two addresses to rank: the first byte's time goes to the shared table as well.
        #expect(actions.contains(.recordFirstByte(micros: 4000, host: UpstreamHostKey(host: "a.test", port: 80))))
    }

    @Test func anErrorAnswerWithoutARequestLogsNothingOfTheExchangeBefore() {
        var script = SessionScript()
        _ = script.all(SessionScript.sentGet + [.responseHead(Heads.ok()), .responsePumped(.complete, moved: 5)])
        let actions = script.all([.buffers(BufferLevels(clientInput: 10)), .requestBegan, .wait(millis: 10_000), .timer])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 408 "))
        var expected = ExchangeRecord()
        expected.status = 408
        expected.note = "request head not received within 10 s"
        expected.bytesToClient = UInt64(actions.sentBytes.count)
        #expect(script.logged == expected)
        #expect(script.loggedRequest?.method == "-")
    }

    @Test func aTunnelsBytesBothWaysAreCountedInItsRecord() {
        var script = SessionScript()
        let actions = script.all(SessionScript.openTunnel + [.relayed(.client, 100), .spliced(.toClient, 2000),
                                                             .spliced(.toUpstream, 30), .close])
        #expect(script.logged?.bytesFromClient == UInt64(Heads.connect.utf8.count) + 130)
        #expect(script.logged?.bytesToClient == 39 + 2000)
        #expect(script.loggedRequest?.isConnect == true)
    }
}

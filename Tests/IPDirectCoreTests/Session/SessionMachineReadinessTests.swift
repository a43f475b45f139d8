import Testing
@testable import IPDirectCore

/// Bytes arriving on a side are an event: the machine says what to do with them in each state, so the
/// driver routes nothing by state itself.
@Suite struct SessionMachineReadinessTests {
    func arrived(after events: [SessionScript.Event]) -> (phase: SessionPhase, client: SessionAction?, upstream: SessionAction?) {
        var script = SessionScript()
        _ = script.run(events)
        return (script.machine.phase, script.machine.bytesArrived(from: .client), script.machine.bytesArrived(from: .upstream))
    }

    @Test func eachStateSaysWhatArrivingBytesAreFor() {
        let table: [(String, [SessionScript.Event], SessionPhase, SessionAction?, SessionAction?)] = [
            ("waiting for a head", [.start], .readingHead, .readNextRequest, nil),
            ("a SOCKS negotiation", [.start, .socksVersion(5)], .socksNegotiation, .readSOCKSMessage, nil),
            ("a request on its way", SessionScript.sentGet, .awaitingResponse, .pumpRequestBody, .readResponseHead),
            ("a response streaming", SessionScript.sentGet + [.responseHead(Heads.ok(length: 10))], .streamingResponse,
             .pumpRequestBody, .pumpResponseBody),
            ("a tunnel", SessionScript.openTunnel, .tunneling, .relay(from: .client), .relay(from: .upstream)),
            ("resolving", [.start, .head(Heads.get())], .resolving, nil, nil),
            ("closed", [.start, .close], .closed, nil, nil),
        ]
        for (name, events, phase, client, upstream) in table {
            let found = arrived(after: events)
            #expect(found.phase == phase, "\(name)")
            #expect(found.client == client, "\(name): from the client")
            #expect(found.upstream == upstream, "\(name): from the upstream")
        }
    }

    @Test func whileTheAnswerIsFlushedOrLingersTheClientsBytesAreDropped() {
        var script = SessionScript()
        _ = script.run([.start, .head("GET /local HTTP/1.1\r\nHost: a.test\r\n\r\n")])
        guard script.machine.phase == .flushing || script.machine.phase == .lingering else {
            Issue.record("an origin-form request is answered by the proxy itself and flushed: \(script.machine.phase)")
            return
        }
        #expect(script.machine.bytesArrived(from: .client) == .discardClientInput)
    }
}

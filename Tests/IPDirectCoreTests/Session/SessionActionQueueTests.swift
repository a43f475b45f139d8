import Testing
@testable import IPDirectCore

/// The machine's queue of actions: what each event queues, what the driver drops once performed, and the
/// rule that an action which may report an event back at once ends its list.
@Suite struct SessionActionQueueTests {
    static let keepAliveExchange: [SessionScript.Event] = [
        .head(Heads.get()), .resolved(["203.0.113.7"]), .pooled, .requestPumped(.complete, moved: 0),
        .responseHead(Heads.ok()), .responsePumped(.complete, moved: 5), .headIncomplete,
    ]

    @Test func aKeepAliveExchangeLeavesTheQueueEmptyAndItsCapacityUnchanged() {
        var script = SessionScript()
        _ = script.run([.start])
        let capacity = script.machine.actions.capacity
        #expect(capacity >= SessionMachine.actionCapacity)
        for _ in 0..<3 {
            let actions = script.run(Self.keepAliveExchange)
            #expect(actions[5].contains(.logExchange))
            #expect(script.machine.actions.isEmpty)
            #expect(script.machine.actions.capacity == capacity)
        }
        #expect(script.machine.phase == .readingHead)
    }

    @Test func anEventQueuesItsActionsAfterThoseStillBeingPerformed() {
        var plain = SessionScript()
        let expected = plain.run(SessionScript.sentGet).last
        var script = SessionScript()
        _ = script.run([.start, .head(Heads.get()), .resolved(["203.0.113.7"])])
        // The driver is performing `forwardRequest` (the pump reports at once) when the next event comes.
        script.machine.upstreamReady(UpstreamLink(reused: false, isTLS: false), address: SessionScript.address,
                                     .connected(attempts: 1, rank: 1), now: script.now)
        let performing = script.machine.actions.count
        let nested = script.apply(.requestPumped(.complete, moved: 0))
        #expect(nested == expected)
        #expect(nested.first == .cancelTimer)
        #expect(script.machine.actions.count == performing)
        #expect(script.machine.actions.last?.reportsBackAtOnce == true)
        script.machine.dropActions(from: 0)
        #expect(script.machine.actions.isEmpty)
    }

    @Test func droppedActionsLeaveTheirSlotsToTheNextOnes() {
        var queue = SessionActionQueue(capacity: 4)
        queue.append(.cancelTimer)
        queue.append(.resolve)
        queue.append(.readNextRequest)
        queue.drop(from: 1)
        queue.append(.flushClient)
        #expect(Array(queue) == [.cancelTimer, .flushClient])
        let capacity = queue.capacity
        queue.drop(from: 0)
        for _ in 0..<capacity { queue.append(.close) }
        #expect(queue.count == capacity)
        #expect(queue.capacity == capacity)
    }

    @Test func anActionHoldsOnlyPlainValues() {
        #expect(_isPOD(SessionAction.self))
    }

    @Test func theCredentialsToVerifyAreForgottenOnceTaken() {
        var script = SessionScript(requiresAuthentication: true)
        let actions = script.run([.start, .head(Heads.get(fields: Heads.aliceCredentials))])
        #expect(actions[1].last == .verifyCredentials(user: "alice", password: "s3cret:word"))
        #expect(script.machine.takeCredentials()?.user == "alice")
        #expect(script.machine.takeCredentials() == nil)
    }

    @Test func actionsThatMayReportAnEventBackAtOnceAreKnown() {
        let table: [(SessionAction, Bool)] = [
            (.readNextRequest, true), (.resolve, true), (.flushClient, true),
            (.pumpResponseBody, true), (.park(idleMillis: 1), true), (.relay(from: .client), true),
            (.armTimer(millis: 1), false), (.logExchange, false), (.releaseUpstream(reusable: true), false),
            (.sendToClient, false), (.close, false),
        ]
        for (action, reportsBack) in table {
            #expect(action.reportsBackAtOnce == reportsBack, "\(action)")
        }
    }

    /// Whole conversations of each kind, checked event by event: an action that may report back ends its list.
    @Test func anActionThatMayReportBackIsTheLastOfItsList() {
        let conversations: [[SessionScript.Event]] = [
            SessionScript.sentGet + [.responseHead(Heads.ok()), .responsePumped(.complete, moved: 5)],
            SessionScript.openTunnel + [.relayed(.client, 10), .clientFIN, .upstreamEnded(.eof)],
            [.start, .head("GET /index.html HTTP/1.1\r\nHost: a.test\r\n\r\n"), .drained(.client), .unreadCounted(0)],
            [.start, .socksVersion(5), .socksBytes([5, 1, 0])],
        ]
        for events in conversations {
            var script = SessionScript()
            _ = script.run(events)
            for actions in script.queued {
                let early = actions.dropLast().filter(\.reportsBackAtOnce)
                #expect(early.isEmpty, "\(actions)")
            }
        }
    }
}

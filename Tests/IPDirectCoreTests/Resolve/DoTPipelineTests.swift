import Testing
@testable import IPDirectCore

/// One DNS-over-TLS connection's queries, driven by events with no socket and no clock.
@Suite struct DoTPipelineTests {
    typealias Pipeline = DoTPipeline<Int, String>

    /// IDs drawn in turn from `ids`, so a test knows which ID each query gets; then 1000, 1001, ...
    static func pipeline(ids: [UInt16], limits: Pipeline.Limits = .init()) -> Pipeline {
        var remaining = ids[...]
        var next: UInt16 = 1000
        return Pipeline(limits: limits, randomID: {
            if let id = remaining.popFirst() { return id }
            next += 1
            return next
        })
    }

    /// A pipeline whose connection is open, with no query yet.
    static func openPipeline(ids: [UInt16], limits: Pipeline.Limits = .init()) -> Pipeline {
        var pipeline = pipeline(ids: ids, limits: limits)
        _ = pipeline.submit(0, question: "warm-up A", now: 0)
        _ = pipeline.connected(now: 0)
        _ = pipeline.cancel(0, now: 0)
        return pipeline
    }

    @Test func connectsOnTheFirstQueryAndSendsOnceConnected() {
        var pipeline = Self.pipeline(ids: [7])
        #expect(pipeline.submit(1, question: "a.test A", now: 0) == [.connect])
        #expect(pipeline.state == .connecting)
        #expect(pipeline.connected(now: 5) == [.send(1, id: 7)])
        #expect(pipeline.state == .open)
    }

    @Test func drawsAnotherIDWhenTheDrawnOneIsInFlight() {
        var pipeline = Self.openPipeline(ids: [9, 3, 3, 3, 4])
        #expect(pipeline.submit(1, question: "a.test A", now: 0) == [.send(1, id: 3)])
        #expect(pipeline.submit(2, question: "b.test A", now: 0) == [.send(2, id: 4)])
    }

    @Test func keepsEveryIDInFlightUniqueAcrossAFullPipeline() {
        var pipeline = Self.openPipeline(ids: [0] + (0..<64).flatMap { [UInt16($0 % 8), UInt16($0)] })
        var ids: [UInt16] = []
        for ticket in 1...64 {
            for case .send(_, let id) in pipeline.submit(ticket, question: "n\(ticket).test A", now: 0) { ids.append(id) }
        }
        #expect(ids.count == 64)
        #expect(Set(ids).count == 64)
    }

    @Test func matchesRepliesByIDAndQuestionInAnyOrder() {
        var pipeline = Self.openPipeline(ids: [0, 10, 20])
        _ = pipeline.submit(1, question: "a.test A", now: 0)
        _ = pipeline.submit(2, question: "b.test AAAA", now: 0)
        #expect(pipeline.received(id: 20, question: "b.test AAAA", now: 1) == [.deliver(2)])
        #expect(pipeline.received(id: 10, question: "a.test A", now: 2) == [.deliver(1)])
    }

    @Test func dropsAReplyWhoseQuestionDiffersAndKeepsWaitingForTheRightOne() {
        var pipeline = Self.openPipeline(ids: [0, 10])
        _ = pipeline.submit(1, question: "a.test A", now: 0)
        #expect(pipeline.received(id: 10, question: "evil.test A", now: 1) == [.drop(.otherQuestion(id: 10, asked: "a.test A"))])
        #expect(pipeline.received(id: 11, question: "a.test A", now: 1) == [.drop(.unknownID(11))])
        #expect(pipeline.inFlightCount == 1)
        #expect(pipeline.received(id: 10, question: "a.test A", now: 2) == [.deliver(1)])
    }

    @Test func dropsALateReplyAfterItsQueryWasCancelled() {
        var pipeline = Self.openPipeline(ids: [0, 10])
        _ = pipeline.submit(1, question: "a.test A", now: 0)
        #expect(pipeline.cancel(1, now: 2_000) == [])
        #expect(pipeline.received(id: 10, question: "a.test A", now: 2_500) == [.drop(.unknownID(10))])
    }

    @Test func holdsQueriesBeyondTheLimitUntilAReplyFreesASlot() {
        var pipeline = Self.openPipeline(ids: [0, 1, 2, 3], limits: .init(maximumInFlight: 2))
        #expect(pipeline.submit(1, question: "a A", now: 0) == [.send(1, id: 1)])
        #expect(pipeline.submit(2, question: "b A", now: 0) == [.send(2, id: 2)])
        #expect(pipeline.submit(3, question: "c A", now: 0) == [])
        #expect(pipeline.waitingCount == 1)
        #expect(pipeline.received(id: 1, question: "a A", now: 1) == [.deliver(1), .send(3, id: 3)])
    }

    @Test func resendsQueriesInFlightOnceOnANewConnectionAfterALoss() {
        var pipeline = Self.openPipeline(ids: [0, 10, 20])
        _ = pipeline.submit(1, question: "a A", now: 0)
        _ = pipeline.submit(2, question: "b A", now: 0)
        #expect(pipeline.connectionLost() == [.connect])
        #expect(pipeline.connected(now: 10) == [.send(1, id: 10), .send(2, id: 20)])
        #expect(pipeline.received(id: 20, question: "b A", now: 11) == [.deliver(2)])
    }

    @Test func failsQueriesLostASecondTimeInsteadOfResendingForever() {
        var pipeline = Self.openPipeline(ids: [0, 10, 20])
        _ = pipeline.submit(1, question: "a A", now: 0)
        _ = pipeline.connectionLost()
        _ = pipeline.connected(now: 10)
        _ = pipeline.submit(2, question: "b A", now: 11)
        // Query 1 was resent already; query 2 is on its first connection and gets its one resend.
        #expect(pipeline.connectionLost() == [.fail(1), .connect])
        #expect(pipeline.connected(now: 20) == [.send(2, id: 20)])
    }

    @Test func failsEveryQueryWhenTheConnectFails() {
        var pipeline = Self.pipeline(ids: [10, 20], limits: .init(maximumInFlight: 1))
        _ = pipeline.submit(1, question: "a A", now: 0)
        _ = pipeline.submit(2, question: "b A", now: 0)
        #expect(pipeline.connectFailed() == [.fail(1), .fail(2)])
        #expect(pipeline.state == .closed)
        #expect(pipeline.submit(3, question: "c A", now: 1) == [.connect])
    }

    @Test func staysClosedWhenTheServerClosesAnIdleConnection() {
        var pipeline = Self.openPipeline(ids: [0])
        #expect(pipeline.connectionLost() == [])
        #expect(pipeline.state == .closed)
    }

    @Test func closesAfterThirtySecondsWithNothingInFlight() {
        var pipeline = Self.openPipeline(ids: [0, 10, 20])
        _ = pipeline.submit(1, question: "a A", now: 1_000)
        #expect(pipeline.idleDeadline == nil)
        _ = pipeline.received(id: 10, question: "a A", now: 2_000)
        #expect(pipeline.idleDeadline == 32_000)
        #expect(pipeline.tick(now: 31_999) == [])
        #expect(pipeline.tick(now: 32_000) == [.close])
        #expect(pipeline.state == .closed)
        #expect(pipeline.submit(2, question: "b A", now: 40_000) == [.connect])
    }

    @Test func aReconnectAfterALossIsTriedAgainBeforeItsResentQueriesFail() {
        var pipeline = Self.openPipeline(ids: [0, 10])
        _ = pipeline.submit(1, question: "a A", now: 0)
        #expect(pipeline.connectionLost() == [.connect])
        for _ in 0..<Pipeline.reconnectsAfterLoss {
            #expect(pipeline.connectFailed() == [.connect])
        }
        #expect(pipeline.connectFailed() == [.fail(1)])
        #expect(pipeline.state == .closed)
    }

    @Test func aReconnectThatSucceedsIsAnsweredAndRestoresTheRetries() {
        var pipeline = Self.openPipeline(ids: [0, 10, 20])
        _ = pipeline.submit(1, question: "a A", now: 0)
        _ = pipeline.connectionLost()
        #expect(pipeline.connectFailed() == [.connect])
        #expect(pipeline.connected(now: 5) == [.send(1, id: 10)])
        #expect(pipeline.received(id: 10, question: "a A", now: 6) == [.deliver(1)])
        _ = pipeline.submit(2, question: "b A", now: 7)
        _ = pipeline.connectionLost()
        for _ in 0..<Pipeline.reconnectsAfterLoss {
            #expect(pipeline.connectFailed() == [.connect])
        }
    }
}

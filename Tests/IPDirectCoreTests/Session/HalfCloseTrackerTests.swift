import Testing
@testable import IPDirectCore

@Suite struct HalfCloseTrackerTests {
    @Test func aDirectionIsShutOnlyOnceItsSourceClosedAndNothingIsPending() {
        var tracker = HalfCloseTracker()
        let beforeFIN = tracker.shutIfFlushed(.toUpstream, pendingBytes: 0)
        tracker.sourceClosed(.toUpstream)
        let withBytesPending = tracker.shutIfFlushed(.toUpstream, pendingBytes: 5)
        let flushed = tracker.shutIfFlushed(.toUpstream, pendingBytes: 0)
        let again = tracker.shutIfFlushed(.toUpstream, pendingBytes: 0)
        #expect([beforeFIN, withBytesPending, flushed, again] == [false, false, true, false])
        #expect(tracker.isWriteShut(.toUpstream))
        #expect(!tracker.isFinished)
    }

    @Test func theDirectionsAreIndependent() {
        var tracker = HalfCloseTracker()
        tracker.sourceClosed(.toClient)
        let toUpstream = tracker.shutIfFlushed(.toUpstream, pendingBytes: 0)
        let toClient = tracker.shutIfFlushed(.toClient, pendingBytes: 0)
        #expect(!toUpstream)
        #expect(toClient)
        #expect(tracker.isSourceClosed(.toClient))
        #expect(!tracker.isSourceClosed(.toUpstream))
    }

    @Test func bothDirectionsShutFinishTheRelay() {
        var tracker = HalfCloseTracker(clientReadClosed: true, upstreamReadClosed: true)
        let first = tracker.shutIfFlushed(.toUpstream, pendingBytes: 0)
        let finishedAfterOne = tracker.isFinished
        let second = tracker.shutIfFlushed(.toClient, pendingBytes: 0)
        #expect(first && second)
        #expect(!finishedAfterOne)
        #expect(tracker.isFinished)
    }
}

import CEvent
import Testing

/// Buffer lengths are read where libevent keeps them; they must be libevent's own at every step.
@Suite struct EvbufferLengthTests {
    @Test func theLayoutCheckedAtStartUpIsThisLibevents() {
        #expect(ipd_evbuffer_layout_matches() == 1)
    }

    @Test func lengthsReadInPlaceFollowAddsDrainsAndMoves() {
        let buffer = evbuffer_new()!
        let other = evbuffer_new()!
        defer {
            evbuffer_free(buffer)
            evbuffer_free(other)
        }
        var steps: [(Int, Int)] = []
        func record() { steps.append((ipd_evbuffer_length(buffer), evbuffer_get_length(buffer))) }
        record()
        let bytes = [UInt8](repeating: 7, count: 10_000)
        evbuffer_add(buffer, bytes, bytes.count)
        record()
        evbuffer_drain(buffer, 2_500)
        record()
        evbuffer_add(other, bytes, 300)
        evbuffer_add_buffer(buffer, other)
        record()
        evbuffer_remove_buffer(buffer, other, 4_000)
        record()
        evbuffer_drain(buffer, evbuffer_get_length(buffer))
        record()
        #expect(steps.map(\.1) == [0, 10_000, 7_500, 7_800, 3_800, 0])
        #expect(steps.allSatisfy { $0.0 == $0.1 })
    }
}

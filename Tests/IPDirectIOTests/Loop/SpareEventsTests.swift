import CEvent
import Glibc
import Testing
@testable import IPDirectIO
import IPDirectTesting

/// An event kept by `SpareEvents` serves its next user as a new one would: it calls only the new callback,
/// with the new context, and nothing the previous user armed fires; only as many are kept as the list holds.
@Suite struct SpareEventsTests {
    /// Counts the times its event fired.
    final class Counter {
        var fired = 0

        static let callback: event_callback_fn = { _, _, context in
            Unmanaged<Counter>.fromOpaque(context!).takeUnretainedValue().fired += 1
        }

        var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    }

    /// A timer of `spares` armed for `millis`, calling `counter`.
    static func armedTimer(from spares: SpareEvents, for counter: Counter, millis: Int) throws -> OpaquePointer {
        guard let event = spares.event(fd: -1, events: 0, callback: Counter.callback, context: counter.context) else {
            throw FixtureError("no event")
        }
        var delay = timeval(millis: millis)
        event_add(event, &delay)
        return event
    }

    @Test func aKeptEventCallsOnlyItsNextUserAndNothingArmedBeforeFires() throws {
        let base = EventBase()
        let spares = SpareEvents(base: base)
        let previous = Counter()
        let first = try Self.armedTimer(from: spares, for: previous, millis: 10)
        spares.keep(first)
        #expect(spares.count == 1)
        let next = Counter()
        let second = try Self.armedTimer(from: spares, for: next, millis: 40)
        defer { event_free(second) }
        #expect(second == first && spares.count == 0)
        LoopDriver.run(base, forMillis: 25)
        #expect(previous.fired == 0 && next.fired == 0)
        #expect(LoopDriver.run(base) { next.fired == 1 })
        #expect(previous.fired == 0)
    }

    @Test func keepsNoMoreEventsThanItsCapacity() throws {
        let base = EventBase()
        let spares = SpareEvents(base: base, capacity: 2)
        let counter = Counter()
        let events = try (0..<3).map { _ in try Self.armedTimer(from: spares, for: counter, millis: 10) }
        for event in events { spares.keep(event) }
        #expect(spares.count == 2)
        LoopDriver.run(base, forMillis: 30)
        #expect(counter.fired == 0)
    }
}

import CEvent
import Glibc
import Testing
@testable import IPDirectCore
@testable import IPDirectIO
import IPDirectTesting

/// An upstream connection keeps the flow settings sessions give it across the requests it carries, and its read
/// timeout, which the pool and the sessions that take it set in turn.
@Suite struct UpstreamConnectionTests {
    @Test func flowSettingsAreGivenOncePerConnectionAndAgainWhenTheLimitChanges() throws {
        let base = EventBase()
        let pair = try UpstreamPoolTests.Pair(base: base, address: UpstreamPoolTests.first)
        let connection = pair.connection
        connection.setFlow(readHighWater: 100, drainAt: 10, maxSingleIO: 4096)
        #expect(connection.socket.readHighWater == 100)
        // A later request with the same limit leaves the socket alone, even a watermark changed meanwhile.
        connection.socket.setWatermarks(readHigh: 50, drainAt: 10)
        connection.setFlow(readHighWater: 100, drainAt: 10, maxSingleIO: 4096)
        #expect(connection.socket.readHighWater == 50)
        // A reload that changed the limit reaches the connection.
        connection.setFlow(readHighWater: 200, drainAt: 10, maxSingleIO: 4096)
        #expect(connection.socket.readHighWater == 200)
    }

    @Test func aReadTimeoutSetAgainCountsFromThen() throws {
        let base = EventBase()
        let (pair, owner) = try Self.reading(on: base)
        let connection = pair.connection
        connection.setReadTimeout(300)
        connection.keepReadTimeoutUntilReused()
        LoopDriver.run(base, forMillis: 200)
        connection.setReadTimeout(300)
        LoopDriver.run(base, forMillis: 200)
        #expect(owner.events.isEmpty)
        #expect(LoopDriver.run(base) { !owner.events.isEmpty })
        #expect(owner.events == [Int16(BEV_EVENT_READING | BEV_EVENT_TIMEOUT)])
    }

    @Test func aReadTimeoutLeftByTheLastExchangeIsToldFromOneASessionSet() throws {
        let base = EventBase()
        let pair = try UpstreamPoolTests.Pair(base: base, address: UpstreamPoolTests.first)
        let connection = pair.connection
        connection.keepReadTimeoutUntilReused()
        #expect(!connection.hasStaleReadTimeout, "no timeout was set, so none is left")
        connection.setReadTimeout(1000)
        #expect(!connection.hasStaleReadTimeout)
        connection.keepReadTimeoutUntilReused()
        #expect(connection.hasStaleReadTimeout)
        connection.setReadTimeout(nil)
        #expect(!connection.hasStaleReadTimeout)
    }

    @Test func clearingTheReadTimeoutStopsIt() throws {
        let base = EventBase()
        let (pair, owner) = try Self.reading(on: base)
        let connection = pair.connection
        connection.setReadTimeout(50)
        connection.keepReadTimeoutUntilReused()
        connection.setReadTimeout(nil)
        connection.setReadTimeout(nil)
        LoopDriver.run(base, forMillis: 200)
        #expect(owner.events.isEmpty)
    }

    /// A connection whose socket reads, its callbacks going to the owner returned.
    static func reading(on base: EventBase) throws -> (UpstreamPoolTests.Pair, BufferedSocketTests.Owner) {
        let pair = try UpstreamPoolTests.Pair(base: base, address: UpstreamPoolTests.first)
        let owner = BufferedSocketTests.Owner()
        pair.connection.socket.handOver(to: owner, calling: BufferedSocketTests.Owner.handlers)
        pair.connection.socket.resumeReading()
        return (pair, owner)
    }
}

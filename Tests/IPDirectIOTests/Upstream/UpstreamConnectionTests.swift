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
        let leftover = try LeftoverOf300Millis()
        leftover.connection.setReadTimeout(300)
        LoopDriver.run(leftover.base, forMillis: 200)
        #expect(leftover.owner.events.isEmpty)
        #expect(LoopDriver.run(leftover.base) { !leftover.owner.events.isEmpty })
        #expect(leftover.owner.events == [Int16(BEV_EVENT_READING | BEV_EVENT_TIMEOUT)])
    }

    @Test func aReadTimeoutLeftByTheLastExchangeIsToldFromOneASessionSet() throws {
        let base = EventBase()
        let pair = try UpstreamPoolTests.Pair(base: base, address: UpstreamPoolTests.first)
        let connection = pair.connection
        connection.keepReadTimeoutUntilReused(pooledAt: MonotonicClock.nowMicros())
        #expect(!connection.hasStaleReadTimeout, "no timeout was set, so none is left")
        connection.setReadTimeout(1000)
        #expect(!connection.hasStaleReadTimeout)
        connection.keepReadTimeoutUntilReused(pooledAt: MonotonicClock.nowMicros())
        #expect(connection.hasStaleReadTimeout)
        connection.setReadTimeout(nil)
        #expect(!connection.hasStaleReadTimeout)
    }

    @Test func aResponseTimeoutAskedSoonAfterPoolingLetsTheLeftoverRunOn() throws {
        let leftover = try LeftoverOf300Millis()
        // Asked as if no time had passed since pooling: the timeout set 200 ms ago is kept, so it fires soon.
        leftover.connection.armResponseTimeout(300, now: leftover.pooledAt)
        #expect(!leftover.connection.hasStaleReadTimeout)
        #expect(LoopDriver.run(leftover.base, limitMillis: 250) { !leftover.owner.events.isEmpty })
        #expect(leftover.owner.events == [Int16(BEV_EVENT_READING | BEV_EVENT_TIMEOUT)])
    }

    @Test func aResponseTimeoutAskedLongAfterPoolingCountsFromThen() throws {
        let leftover = try LeftoverOf300Millis()
        leftover.connection.armResponseTimeout(300, now: leftover.pooledAt + 10_000_000)
        LoopDriver.run(leftover.base, forMillis: 200)
        #expect(leftover.owner.events.isEmpty)
        #expect(LoopDriver.run(leftover.base) { !leftover.owner.events.isEmpty })
    }

    /// A reading connection whose last exchange left a 300 ms read timeout when it was pooled, 200 ms ago.
    struct LeftoverOf300Millis {
        let pair: UpstreamPoolTests.Pair
        let owner: BufferedSocketTests.Owner
        let pooledAt: Int64
        // Declared after the connection, so that it goes after it: a bufferevent must be freed before its loop.
        let base: EventBase
        var connection: UpstreamConnection { pair.connection }

        init() throws {
            let base = EventBase()
            self.base = base
            (pair, owner) = try UpstreamConnectionTests.reading(on: base)
            pair.connection.setReadTimeout(300)
            pooledAt = MonotonicClock.nowMicros()
            pair.connection.keepReadTimeoutUntilReused(pooledAt: pooledAt)
            LoopDriver.run(base, forMillis: 200)
        }
    }

    @Test func clearingTheReadTimeoutStopsIt() throws {
        let base = EventBase()
        let (pair, owner) = try Self.reading(on: base)
        let connection = pair.connection
        connection.setReadTimeout(50)
        connection.keepReadTimeoutUntilReused(pooledAt: MonotonicClock.nowMicros())
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

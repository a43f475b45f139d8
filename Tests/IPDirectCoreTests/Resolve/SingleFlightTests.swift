import Testing
@testable import IPDirectCore

@Suite struct SingleFlightTests {
    typealias Flights = SingleFlight<ResolverCacheKey, String>
    let key = ResolverCacheKey(name: "a.test", family: .v4)
    let otherKey = ResolverCacheKey(name: "a.test", family: .v6)

    @Test func theFirstCallerLeadsAndLaterCallersFollow() {
        var flights = Flights()
        #expect(flights.join(key, waiter: "session-1").role == .leader)
        #expect(flights.join(key, waiter: "session-2").role == .follower)
        #expect(flights.join(key, waiter: "session-3").role == .follower)
        #expect(flights.waiterCount(for: key) == 3)
        #expect(flights.isRunning(key))
    }

    @Test func coalescesFiftyConcurrentLookupsIntoOneQuery() {
        var flights = Flights()
        let roles = (1...50).map { flights.join(key, waiter: "session-\($0)").role }
        #expect(roles.filter { $0 == .leader }.count == 1)
        #expect(flights.runningCount == 1)
        #expect(flights.finish(key) == (1...50).map { "session-\($0)" })
    }

    @Test func finishHandsBackEveryWaiterInJoinOrderAndLeavesTheKeyIdle() {
        var flights = Flights()
        _ = flights.join(key, waiter: "first")
        _ = flights.join(key, waiter: "second")
        #expect(flights.finish(key) == ["first", "second"])
        #expect(!flights.isRunning(key))
        #expect(flights.finish(key) == [])
        #expect(flights.join(key, waiter: "third").role == .leader, "a finished key starts a new query")
    }

    @Test func keysAreIndependent() {
        var flights = Flights()
        #expect(flights.join(key, waiter: "v4").role == .leader)
        #expect(flights.join(otherKey, waiter: "v6").role == .leader)
        #expect(flights.finish(otherKey) == ["v6"])
        #expect(flights.finish(key) == ["v4"])
    }

    @Test func aCancelledWaiterIsNeverHandedBack() {
        var flights = Flights()
        let leader = flights.join(key, waiter: "leader")
        let dying = flights.join(key, waiter: "dying")
        _ = flights.join(key, waiter: "patient")
        #expect(flights.cancel(key, waiterID: dying.id) == .removed(remaining: 2))
        #expect(flights.cancel(key, waiterID: dying.id) == .notWaiting)
        #expect(flights.finish(key) == ["leader", "patient"])
        #expect(flights.cancel(key, waiterID: leader.id) == .notWaiting, "finished waiters cannot be cancelled")
    }

    @Test func theQueryOutlivesACancelledLeader() {
        var flights = Flights()
        let leader = flights.join(key, waiter: "leader")
        #expect(flights.cancel(key, waiterID: leader.id) == .removed(remaining: 0))
        #expect(flights.isRunning(key), "the answer still warms the cache")
        #expect(flights.join(key, waiter: "late").role == .follower, "no second query while the first runs")
        #expect(flights.finish(key) == ["late"])
    }

    @Test func cancellingWithTheWrongKeyRemovesNothing() {
        var flights = Flights()
        let ticket = flights.join(key, waiter: "a")
        #expect(flights.cancel(otherKey, waiterID: ticket.id) == .notWaiting)
        #expect(flights.waiterCount(for: key) == 1)
    }

    @Test func aBackgroundRefreshRunsOnceAndLookupsJoinIt() {
        var flights = Flights()
        #expect(flights.startWithoutWaiter(key) == .leader)
        #expect(flights.startWithoutWaiter(key) == .follower)
        #expect(flights.join(key, waiter: "session").role == .follower)
        #expect(flights.finish(key) == ["session"])
        _ = flights.join(key, waiter: "user")
        #expect(flights.startWithoutWaiter(key) == .follower, "a user lookup already runs the query")
    }

    @Test func waiterIDsAreDistinct() {
        var flights = Flights()
        let ids = (1...10).map { flights.join($0.isMultiple(of: 2) ? key : otherKey, waiter: "w\($0)").id }
        #expect(Set(ids).count == 10)
        #expect(ids[0].description.hasPrefix("waiter-"))
    }
}

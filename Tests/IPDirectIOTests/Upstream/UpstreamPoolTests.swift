import CEvent
import Glibc
import Testing
@testable import IPDirectCore
@testable import IPDirectIO
import IPDirectTesting

/// The pool of idle upstream connections, on socketpairs whose far end plays the origin: reuse by key and
/// address, a connection the origin closed or wrote to while idle never handed out, the per-key limit, the
/// idle timeout, and idle connections to addresses a plan no longer keeps closed.
@Suite struct UpstreamPoolTests {
    static let key = UpstreamPoolKey(scheme: .http, host: "origin.example", port: 80)
    static let first = SocketAddress(ip: IPAddress("192.0.2.1")!, port: 80)
    static let second = SocketAddress(ip: IPAddress("192.0.2.2")!, port: 80)

    /// One connection of the pool and the origin's end of its socketpair.
    final class Pair {
        let connection: UpstreamConnection
        let originFD: Int32

        init(base: EventBase, address: SocketAddress, key: UpstreamPoolKey = UpstreamPoolTests.key) throws {
            var fds: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
                throw FixtureError("socketpair: \(String(cString: strerror(errno)))")
            }
            evutil_make_socket_nonblocking(fds[0])
            guard let socket = BufferedSocket(socket: fds[0], base: base) else {
                throw FixtureError("bufferevent_socket_new failed")
            }
            connection = UpstreamConnection(socket: socket, key: key, address: address)
            originFD = fds[1]
        }

        /// Whether the pool's side was closed: the origin's end reads EOF once the loop has run the close
        /// (libevent may finish freeing a bufferevent from its loop).
        func closedByPool(_ base: EventBase) -> Bool {
            LoopDriver.run(base) {
                var byte: UInt8 = 0
                return recv(originFD, &byte, 1, Int32(MSG_DONTWAIT)) == 0
            }
        }

        /// The origin's end neither reads EOF nor fails: the pool has not closed its side.
        var isOpenToOrigin: Bool {
            var byte: UInt8 = 0
            return recv(originFD, &byte, 1, Int32(MSG_DONTWAIT)) < 0 && errno == EAGAIN
        }

        deinit { close(originFD) }
    }

    func plan(_ reusable: [SocketAddress], keepsIdle: [SocketAddress]? = nil) -> AddressPlan {
        AddressPlan(order: reusable, reusable: reusable, keepsIdle: keepsIdle)
    }

    @Test func anIdleConnectionIsHandedOutAgainForItsKeyAndAddress() throws {
        let base = EventBase()
        let pool = UpstreamPool(base: base, maxIdlePerKey: 4, idleTimeoutMillis: 10_000)
        let pair = try Pair(base: base, address: Self.first)
        pool.checkin(pair.connection)
        #expect(pool.idleCount == 1 && pair.connection.reused)
        #expect(pool.checkout(key: UpstreamPoolKey(scheme: .http, host: "other.example", port: 80), plan: plan([Self.first])) == nil)
        #expect(pool.checkout(key: UpstreamPoolKey(scheme: .https, host: "origin.example", port: 80), plan: plan([Self.first])) == nil,
                "a plain connection never carries an https request to the same host and port")
        #expect(pool.checkout(key: Self.key, plan: plan([Self.second], keepsIdle: [Self.first, Self.second])) == nil)
        #expect(pool.checkout(key: Self.key, plan: plan([Self.first])) === pair.connection)
        #expect(pool.idleCount == 0)
    }

    @Test func aConnectionTakenAndReturnedAgainAndAgainStaysInItsKeysList() throws {
        let timed = Timed(idleTimeoutMillis: 10_000)
        let otherKey = UpstreamPoolKey(scheme: .http, host: "other.example", port: 80)
        let pair = try timed.pooled(Self.first)
        let other = try timed.pooled(Self.first, key: otherKey)
        for _ in 0..<3 {
            #expect(timed.pool.checkout(key: Self.key, plan: plan([Self.first])) === pair.connection)
            timed.pool.checkin(pair.connection)
        }
        #expect(timed.pool.idleCount == 2 && timed.pool.slotCount == 2)
        #expect(timed.pool.checkout(key: otherKey, plan: plan([Self.first])) === other.connection)
        #expect(timed.pool.checkout(key: Self.key, plan: plan([Self.first])) === pair.connection)
    }

    @Test func aConnectionTakenOutAcrossASweepGoesBackToItsList() throws {
        let timed = Timed(idleTimeoutMillis: 100)
        let taken = try timed.pooled(Self.first)
        let left = try timed.pooled(Self.second)
        #expect(timed.pool.checkout(key: Self.key, plan: plan([Self.first], keepsIdle: [Self.first, Self.second])) === taken.connection)
        #expect(LoopDriver.run(timed.base) { timed.pool.idleCount == 0 }, "the sweep closed the one left")
        #expect(left.closedByPool(timed.base))
        timed.pool.checkin(taken.connection)
        #expect(timed.pool.checkout(key: Self.key, plan: plan([Self.first])) === taken.connection)
    }

    @Test func keysAddedWhileAConnectionWasOutDoNotSendItToAnotherList() throws {
        // Enough keys for the table to grow, which moves every list.
        try checkinOfATakenConnection(afterPoolingOthersUnder: (0..<40).map { "o\($0).example" })
    }

    @Test func aConnectionWhoseEmptyListWasSweptWhileItWasOutGetsANewOne() throws {
        try checkinOfATakenConnection(afterPoolingOthersUnder: ["o1.example", "o2.example"], keptSlots: 2)
    }

    /// Takes a pooled connection out, pools one connection under each of `hosts`, returns the first and checks
    /// every connection is handed out for its own key.
    private func checkinOfATakenConnection(afterPoolingOthersUnder hosts: [String],
                                           keptSlots: Int = UpstreamPool.defaultKeptSlots) throws {
        let timed = Timed(idleTimeoutMillis: 10_000, keptSlots: keptSlots)
        let pair = try timed.pooled(Self.first)
        #expect(timed.pool.checkout(key: Self.key, plan: plan([Self.first])) === pair.connection)
        let keys = hosts.map { UpstreamPoolKey(scheme: .http, host: $0, port: 80) }
        let others = try keys.map { try timed.pooled(Self.second, key: $0) }
        timed.pool.checkin(pair.connection)
        #expect(timed.pool.checkout(key: Self.key, plan: plan([Self.first])) === pair.connection)
        for (key, other) in zip(keys, others) {
            #expect(timed.pool.checkout(key: key, plan: plan([Self.second])) === other.connection)
        }
    }

    @Test func aConnectionTheOriginClosedOrWroteToWhileIdleIsDropped() throws {
        let base = EventBase()
        let pool = UpstreamPool(base: base, maxIdlePerKey: 4, idleTimeoutMillis: 10_000)
        let closed = try Pair(base: base, address: Self.first)
        let chatty = try Pair(base: base, address: Self.first)
        pool.checkin(closed.connection)
        pool.checkin(chatty.connection)
        shutdown(closed.originFD, Int32(SHUT_WR))
        _ = "HTTP/1.1 200 OK\r\n".withCString { send(chatty.originFD, $0, 17, 0) }
        LoopDriver.run(base) { pool.idleCount == 0 }
        #expect(pool.idleCount == 0)
        #expect(closed.closedByPool(base) && chatty.closedByPool(base))
    }

    @Test func aConnectionHoldingBytesItReadAtCheckoutIsNotHandedOut() throws {
        // Bytes already taken off the socket whose read callback has not run yet: checkout itself must notice.
        let base = EventBase()
        let pool = UpstreamPool(base: base, maxIdlePerKey: 4, idleTimeoutMillis: 10_000)
        let pair = try Pair(base: base, address: Self.first)
        pool.checkin(pair.connection)
        let input = pair.connection.socket.input
        evbuffer_unfreeze(input, 0)
        _ = "HTTP/1.1 408".withCString { evbuffer_add(input, $0, 12) }
        evbuffer_freeze(input, 0)
        #expect(pool.checkout(key: Self.key, plan: plan([Self.first])) == nil)
        #expect(pool.idleCount == 0)
        #expect(pair.closedByPool(base))
    }

    @Test func aFINThatArrivesWhileTheLoopIsBusyDropsTheConnectionOnTheLoopsNextTurn() throws {
        // Checkout makes no system call: a FIN not yet seen by the loop is found by the pooled read, and a
        // request sent on the connection meanwhile fails before its first response byte and is retried.
        let base = EventBase()
        let pool = UpstreamPool(base: base, maxIdlePerKey: 4, idleTimeoutMillis: 10_000)
        let pair = try Pair(base: base, address: Self.first)
        pool.checkin(pair.connection)
        shutdown(pair.originFD, Int32(SHUT_WR))
        #expect(LoopDriver.run(base) { pool.idleCount == 0 })
        #expect(pool.checkout(key: Self.key, plan: plan([Self.first])) == nil)
        #expect(pair.closedByPool(base))
    }

    @Test func pastThePerKeyLimitTheOldestIdleConnectionCloses() throws {
        let base = EventBase()
        let pool = UpstreamPool(base: base, maxIdlePerKey: 2, idleTimeoutMillis: 10_000)
        let pairs = try (0..<3).map { _ in try Pair(base: base, address: Self.first) }
        pairs.forEach { pool.checkin($0.connection) }
        #expect(pool.idleCount == 2)
        #expect(pairs[0].closedByPool(base))
        #expect(pool.checkout(key: Self.key, plan: plan([Self.first])) === pairs[2].connection, "most recent first")
    }

    /// A pool of up to 4 connections per key on its own loop, with the idle timeout given.
    struct Timed {
        let pool: UpstreamPool
        // Declared after the pool, so that it goes after it: the pool's timer must be freed before its loop.
        let base: EventBase

        init(idleTimeoutMillis: Int, keptSlots: Int = UpstreamPool.defaultKeptSlots) {
            let base = EventBase()
            self.base = base
            pool = UpstreamPool(base: base, maxIdlePerKey: 4, idleTimeoutMillis: idleTimeoutMillis, keptSlots: keptSlots)
        }

        /// A connection to `address`, pooled once its exchange left a read timeout of `readTimeoutMillis`.
        func pooled(_ address: SocketAddress, key: UpstreamPoolKey = UpstreamPoolTests.key,
                    readTimeoutMillis: Int? = nil) throws -> Pair {
            let pair = try Pair(base: base, address: address, key: key)
            if let readTimeoutMillis { pair.connection.setReadTimeout(readTimeoutMillis) }
            pool.checkin(pair.connection)
            return pair
        }
    }

    @Test func theIdleTimeoutClosesAConnection() throws {
        let timed = Timed(idleTimeoutMillis: 50)
        let pair = try timed.pooled(Self.first)
        #expect(LoopDriver.run(timed.base) { timed.pool.idleCount == 0 })
        #expect(pair.closedByPool(timed.base))
    }

    @Test func eachIdleConnectionClosesWhenItsOwnIdleTimeHasPassed() throws {
        // Two seconds between the two, so that a loop slowed down by a busy machine (the unit tests' own
        // password hashing on every core) still sweeps them apart.
        let idleMillis = 3_000
        let timed = Timed(idleTimeoutMillis: idleMillis)
        let older = try timed.pooled(Self.first)
        let olderDue = older.connection.pooledAtMicros + Int64(idleMillis) * 1_000
        LoopDriver.run(timed.base, forMillis: 2_000)
        let newer = try timed.pooled(Self.second)
        let newerDue = newer.connection.pooledAtMicros + Int64(idleMillis) * 1_000
        #expect(LoopDriver.run(timed.base) { timed.pool.idleCount < 2 })
        let firstSweep = MonotonicClock.nowMicros()
        #expect(firstSweep >= olderDue, "the older connection closed before its idle time had passed")
        #expect(older.closedByPool(timed.base))
        // A sweep that came before the newer connection's due time must have left it open. One that a loop
        // starved for seconds (seen once on a busy machine) ran later closes both at once, and says nothing
        // about the newer one's own time but that it had passed too.
        if firstSweep < newerDue {
            #expect(timed.pool.idleCount == 1 && newer.isOpenToOrigin)
            #expect(LoopDriver.run(timed.base) { timed.pool.idleCount == 0 })
        } else {
            #expect(timed.pool.idleCount == 0)
        }
        #expect(MonotonicClock.nowMicros() >= newerDue)
        #expect(newer.closedByPool(timed.base))
    }

    @Test func aReadTimeoutLeftByTheLastExchangeDoesNotEndAPooledConnectionEarly() throws {
        let timed = Timed(idleTimeoutMillis: 10_000)
        let pair = try timed.pooled(Self.first, readTimeoutMillis: 30)
        LoopDriver.run(timed.base, forMillis: 200)
        #expect(timed.pool.idleCount == 1 && pair.isOpenToOrigin)
        #expect(!pair.connection.hasStaleReadTimeout, "the timeout that fired was cleared")
        // Still watched: the origin closing drops it.
        shutdown(pair.originFD, Int32(SHUT_WR))
        #expect(LoopDriver.run(timed.base) { timed.pool.idleCount == 0 })
    }

    @Test func aReusedConnectionStillHasTheReadTimeoutItsLastExchangeLeftForItsSessionToReplace() throws {
        let timed = Timed(idleTimeoutMillis: 10_000)
        let pair = try timed.pooled(Self.first, readTimeoutMillis: 5_000)
        #expect(timed.pool.checkout(key: Self.key, plan: plan([Self.first])) === pair.connection)
        #expect(pair.connection.hasStaleReadTimeout)
    }

    @Test func idleConnectionsToAddressesAPlanNoLongerKeepsAreClosed() throws {
        let base = EventBase()
        let pool = UpstreamPool(base: base, maxIdlePerKey: 4, idleTimeoutMillis: 10_000)
        let dropped = try Pair(base: base, address: Self.first)
        let kept = try Pair(base: base, address: Self.second)
        pool.checkin(dropped.connection)
        pool.checkin(kept.connection)
        #expect(pool.checkout(key: Self.key, plan: plan([Self.second])) === kept.connection)
        #expect(dropped.closedByPool(base) && pool.idleCount == 0)
    }

    @Test func aPoolThatKeepsNothingClosesAtCheckin() throws {
        let base = EventBase()
        let pool = UpstreamPool(base: base, maxIdlePerKey: 0, idleTimeoutMillis: 10_000)
        let pair = try Pair(base: base, address: Self.first)
        pool.checkin(pair.connection)
        #expect(pool.idleCount == 0 && pair.closedByPool(base))
    }

    @Test func aKeysListStaysWhenItsLastConnectionIsTakenSoTheNextCheckinReusesIt() throws {
        let base = EventBase()
        let pool = UpstreamPool(base: base, maxIdlePerKey: 4, idleTimeoutMillis: 10_000)
        let first = try Pair(base: base, address: Self.first)
        pool.checkin(first.connection)
        #expect(pool.checkout(key: Self.key, plan: plan([Self.first])) === first.connection)
        #expect(pool.idleCount == 0 && pool.slotCount == 1)
        pool.checkin(first.connection)
        #expect(pool.slotCount == 1)
        #expect(pool.checkout(key: Self.key, plan: plan([Self.first])) === first.connection)
        #expect(pool.checkout(key: Self.key, plan: plan([Self.first])) == nil, "an empty list hands nothing out")
    }

    @Test func emptyListsAreSweptOncePastTheKeysKept() throws {
        let base = EventBase()
        let pool = UpstreamPool(base: base, maxIdlePerKey: 4, idleTimeoutMillis: 10_000, keptSlots: 2)
        let keys = (1...3).map { UpstreamPoolKey(scheme: .http, host: "origin\($0).example", port: 80) }
        let pairs = try keys.map { try Pair(base: base, address: Self.first, key: $0) }
        pool.checkin(pairs[0].connection)
        pool.checkin(pairs[1].connection)
        #expect(pool.checkout(key: keys[0], plan: plan([Self.first])) === pairs[0].connection)
        #expect(pool.slotCount == 2)
        pool.checkin(pairs[2].connection)
        #expect(pool.slotCount == 2, "the empty list of the first key went")
        #expect(pool.idleCount == 2)
        #expect(pool.checkout(key: keys[1], plan: plan([Self.first])) === pairs[1].connection)
        #expect(pool.checkout(key: keys[2], plan: plan([Self.first])) === pairs[2].connection)
    }
}

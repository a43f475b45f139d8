import Testing
@testable import IPDirectCore

/// The order in which logins reach the password checker, with the checker played by the test: a burst
/// from one client is checked one login at a time and meets the slow-down where a sequence would, clients
/// take turns, and repeated logins share one check.
@Suite struct LoginQueueTests {
    typealias Queue = LoginQueue<Int>
    let throttle = LoginThrottle.Settings()
    let attacker = IPAddress("192.0.2.10")!
    let neighbour = IPAddress("192.0.2.20")!

    static func digest(_ value: UInt8) -> VerifiedCredentials.Digest {
        VerifiedCredentials.Digest(bytes: [value])
    }

    /// Takes the login the checker is given now, recording an issue when there is none.
    static func takeNext(_ queue: inout Queue) -> Queue.Entry? {
        let entry = queue.next()
        if entry == nil { Issue.record("a queued login was not given to the checker") }
        return entry
    }

    /// Checks every queued login in the queue's order; `rightLogins` hold the right password. Returns the
    /// logins that were checked, in order, and the answer each login got.
    static func checkAll(_ queue: inout Queue, rightLogins: Set<Int>, now: Int64)
        -> (checked: [Int], answers: [Int: String]) {
        var checked: [Int] = []
        var answers: [Int: String] = [:]
        while let entry = queue.next() {
            checked.append(entry.login)
            let matched = rightLogins.contains(entry.login)
            answers[entry.login] = matched ? "accepted" : "refused"
            let settled = queue.finished(entry, matched: matched, now: now)
            for same in settled.sameLogin { answers[same.login] = matched ? "accepted" : "refused" }
            for held in settled.heldBack { answers[held.login] = "held back" }
        }
        return (checked, answers)
    }

    @Test func aBurstOfWrongLoginsRunsNoMoreChecksThanTheSameLoginsOneAtATime() {
        var queue = Queue(throttle: throttle)
        let right = 29
        for login in 0...right {
            #expect(queue.enqueue(login, client: attacker, digest: Self.digest(UInt8(login)), now: 0) == .queued)
        }
        let (checked, answers) = Self.checkAll(&queue, rightLogins: [right], now: 1)
        #expect(checked == Array(0...throttle.allowedFailures))
        #expect(answers[right] == "held back")
        #expect(answers.values.filter { $0 == "held back" }.count == right - throttle.allowedFailures)
        #expect(queue.waitingCount == 0)
        #expect(queue.enqueue(100, client: attacker, digest: Self.digest(100), now: 2)
            == .heldBack(millisLeft: throttle.initialHoldMillis - 1))
    }

    @Test func aClientHasOneLoginCheckedAtATime() {
        var queue = Queue(throttle: throttle)
        for login in 0..<3 { _ = queue.enqueue(login, client: attacker, digest: Self.digest(UInt8(login)), now: 0) }
        guard let first = Self.takeNext(&queue) else { return }
        #expect(queue.next() == nil)
        _ = queue.finished(first, matched: false, now: 0)
        #expect(queue.next()?.login == 1)
    }

    @Test func anotherClientsLoginWaitsForAtMostOneCheckOfTheBurst() {
        var queue = Queue(throttle: throttle)
        for login in 0..<20 { _ = queue.enqueue(login, client: attacker, digest: Self.digest(UInt8(login)), now: 0) }
        guard let first = Self.takeNext(&queue) else { return }
        #expect(queue.enqueue(1_000, client: neighbour, digest: Self.digest(200), now: 0) == .queued)
        _ = queue.finished(first, matched: false, now: 0)
        #expect(queue.next()?.login == 1_000)
    }

    @Test func clientsTakeTurnsWhateverTheyQueued() {
        var queue = Queue(throttle: throttle)
        let clients = (1...3).map { IPAddress("198.51.100.\($0)")! }
        for round in 0..<3 {
            for (index, client) in clients.enumerated() {
                let login = index * 10 + round
                _ = queue.enqueue(login, client: client, digest: Self.digest(UInt8(login)), now: 0)
            }
        }
        let (checked, _) = Self.checkAll(&queue, rightLogins: Set(0..<100), now: 0)
        #expect(checked == [0, 10, 20, 1, 11, 21, 2, 12, 22])
    }

    @Test func loginsWithTheSameUserAndPasswordShareOneCheck() {
        var queue = Queue(throttle: throttle)
        for login in 0..<6 { _ = queue.enqueue(login, client: attacker, digest: Self.digest(7), now: 0) }
        _ = queue.enqueue(6, client: attacker, digest: Self.digest(8), now: 0)
        let (checked, answers) = Self.checkAll(&queue, rightLogins: [0], now: 0)
        #expect(checked == [0, 6])
        #expect((0..<6).allSatisfy { answers[$0] == "accepted" })
        #expect(answers[6] == "refused")
    }

    @Test func aRepeatedWrongGuessCountsAsOftenAsItIsSentButIsCheckedOnce() {
        var queue = Queue(throttle: throttle)
        for login in 0..<20 { _ = queue.enqueue(login, client: attacker, digest: Self.digest(7), now: 0) }
        _ = queue.enqueue(20, client: attacker, digest: Self.digest(8), now: 0)
        let (checked, answers) = Self.checkAll(&queue, rightLogins: [20], now: 0)
        #expect(checked == [0])
        #expect(answers.values.filter { $0 == "refused" }.count == throttle.allowedFailures + 1)
        #expect(answers[20] == "held back")
        #expect(queue.verdict(for: attacker, now: 1) != .allowed)
    }

    @Test func aRightLoginBetweenRepeatedGuessesIsCheckedInItsTurn() {
        var queue = Queue(throttle: throttle)
        for login in 0..<3 { _ = queue.enqueue(login, client: attacker, digest: Self.digest(7), now: 0) }
        _ = queue.enqueue(3, client: attacker, digest: Self.digest(8), now: 0)
        for login in 4..<20 { _ = queue.enqueue(login, client: attacker, digest: Self.digest(7), now: 0) }
        let (checked, answers) = Self.checkAll(&queue, rightLogins: [3], now: 0)
        #expect(checked == [0, 3, 4])
        #expect(answers[3] == "accepted")
    }

    @Test func oneClientCannotFillTheQueue() {
        var settings = Queue.Settings()
        settings.maximumWaitingPerClient = 4
        var queue = Queue(settings: settings, throttle: throttle)
        for login in 0..<4 {
            #expect(queue.enqueue(login, client: attacker, digest: Self.digest(UInt8(login)), now: 0) == .queued)
        }
        guard case .busy = queue.enqueue(4, client: attacker, digest: Self.digest(4), now: 0) else {
            Issue.record("a client queued past its limit")
            return
        }
        #expect(queue.enqueue(5, client: neighbour, digest: Self.digest(5), now: 0) == .queued)
    }

    @Test func theNumberOfWaitingClientsIsBounded() {
        var settings = Queue.Settings()
        settings.maximumWaitingClients = 2
        var queue = Queue(settings: settings, throttle: throttle)
        #expect(queue.enqueue(0, client: attacker, digest: Self.digest(0), now: 0) == .queued)
        #expect(queue.enqueue(1, client: neighbour, digest: Self.digest(1), now: 0) == .queued)
        guard case .busy = queue.enqueue(2, client: IPAddress("192.0.2.30")!, digest: Self.digest(2), now: 0) else {
            Issue.record("a third client queued past the limit of two")
            return
        }
        #expect(queue.enqueue(3, client: attacker, digest: Self.digest(3), now: 0) == .queued)
    }

    @Test func aClientWhoseLoginIsBeingCheckedQueuesBehindIt() {
        var queue = Queue(throttle: throttle)
        _ = queue.enqueue(0, client: attacker, digest: Self.digest(0), now: 0)
        guard let first = Self.takeNext(&queue) else { return }
        _ = queue.enqueue(1, client: attacker, digest: Self.digest(1), now: 0)
        _ = queue.enqueue(2, client: neighbour, digest: Self.digest(2), now: 0)
        _ = queue.finished(first, matched: true, now: 0)
        let (checked, _) = Self.checkAll(&queue, rightLogins: [1, 2], now: 0)
        #expect(checked == [2, 1])
    }

    @Test func aHoldRefusesAClientsWaitingLoginsButNotItsNeighbours() {
        var queue = Queue(throttle: throttle)
        for login in 0..<10 { _ = queue.enqueue(login, client: attacker, digest: Self.digest(UInt8(login)), now: 0) }
        _ = queue.enqueue(99, client: neighbour, digest: Self.digest(99), now: 0)
        let (_, answers) = Self.checkAll(&queue, rightLogins: [99], now: 0)
        #expect(answers[99] == "accepted")
        #expect(answers[9] == "held back")
    }

    @Test func addressesOfOneIPv6Slash64ShareALineAndItsHold() {
        var queue = Queue(throttle: throttle)
        let sameSlash64 = (1...10).map { IPAddress("2001:db8:1:2::\($0)")! }
        for (index, client) in sameSlash64.enumerated() {
            #expect(queue.enqueue(index, client: client, digest: Self.digest(UInt8(index)), now: 0) == .queued)
        }
        let otherSlash64 = IPAddress("2001:db8:1:3::1")!
        _ = queue.enqueue(99, client: otherSlash64, digest: Self.digest(99), now: 0)
        let (checked, answers) = Self.checkAll(&queue, rightLogins: [99], now: 0)
        #expect(checked == [0, 99, 1, 2, 3, 4, 5])
        #expect((6..<10).allSatisfy { answers[$0] == "held back" })
        #expect(queue.verdict(for: IPAddress("2001:db8:1:2::ffff")!, now: 1) != .allowed)
        #expect(queue.verdict(for: otherSlash64, now: 1) == .allowed)
    }

    @Test func oneNetworksManyAddressesCannotTakeEveryPlaceInTheQueue() {
        var settings = Queue.Settings()
        settings.maximumWaitingClientsPerNetwork = 3
        var queue = Queue(settings: settings, throttle: throttle)
        for host in 1...3 {
            #expect(queue.enqueue(host, client: IPAddress("203.0.113.\(host)")!, digest: Self.digest(UInt8(host)), now: 0) == .queued)
        }
        guard case .busy = queue.enqueue(4, client: IPAddress("203.0.113.4")!, digest: Self.digest(4), now: 0) else {
            Issue.record("a fourth client of one /24 was queued past the limit of three")
            return
        }
        #expect(queue.enqueue(5, client: IPAddress("203.0.114.1")!, digest: Self.digest(5), now: 0) == .queued)
        for subnet in 1...3 {
            _ = queue.enqueue(10 + subnet, client: IPAddress("2001:db8:7:\(subnet)::1")!, digest: Self.digest(UInt8(10 + subnet)), now: 0)
        }
        guard case .busy = queue.enqueue(20, client: IPAddress("2001:db8:7:9::1")!, digest: Self.digest(20), now: 0) else {
            Issue.record("a fourth /64 of one IPv6 /48 was queued past the limit of three")
            return
        }
    }
}

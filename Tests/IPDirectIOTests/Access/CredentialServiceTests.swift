import Glibc
import IPDirectCore
import Synchronization
import Testing
@testable import IPDirectIO

/// Logins through the shared service as a worker sees them: answers at once or on the asking loop's thread,
/// one crypt(3) call for repeated right logins, refusals that never hold the password.
@Suite struct CredentialServiceTests {
    let client = IPAddress("127.0.0.1")!

    /// Milliseconds that pass only when the test says so; the crypt thread reads them too.
    final class ManualClock: Sendable {
        private let millis = Mutex<Int64>(0)

        var now: Int64 { millis.withLock { $0 } }

        func set(_ now: Int64) {
            millis.withLock { $0 = now }
        }
    }

    /// A worker's loop on the test thread, the service with its crypt thread, and a clock the test moves.
    final class Harness {
        let base = EventBase()
        let mailbox: LoopMailbox
        let service: CredentialService
        let clock = ManualClock()

        init(users: [String: String], throttle: LoginThrottle.Settings = LoginThrottle.Settings()) throws {
            mailbox = try LoopMailbox(base: base)
            service = try CredentialService(users: PasswordFile(hashes: users), throttle: throttle,
                                            clock: { [clock] in clock.now })
            service.start()
        }

        deinit {
            service.stop()
        }

        func verify(_ user: String, _ password: String, client: IPAddress = IPAddress("127.0.0.1")!,
                    completion: @escaping (CredentialCheck) -> Void) -> CredentialLookup {
            service.verify(user: user, password: password, client: client, replyTo: mailbox, completion: completion)
        }

        func setTime(_ now: Int64) {
            clock.set(now)
        }

        /// Asks and runs the loop until the answer arrives (10 s at most, so a lost answer fails instead of hanging).
        func check(_ user: String, _ password: String, client: IPAddress = IPAddress("127.0.0.1")!) -> CredentialCheck? {
            var answer: CredentialCheck?
            switch verify(user, password, client: client, completion: { [base] in answer = $0; base.loopBreak() }) {
            case .done(let check): return check
            case .pending: runLoop()
            }
            return answer
        }

        func runLoop() {
            let limit = Timer(base: base)
            limit.action = { [base] in base.loopBreak() }
            limit.schedule(afterMillis: 10_000)
            base.dispatch()
            limit.cancel()
        }

        var counters: AuthCounters { service.counters() }
    }

    static func bcrypt(_ password: String) throws -> String {
        try CryptWorkspaceTests.htpasswd("B", password: password)
    }

    @Test func aThousandLoginsWithTheSameRightPasswordCostOneCryptCall() throws {
        let harness = try Harness(users: ["alice": try Self.bcrypt("s3cret")])
        #expect(harness.check("alice", "s3cret") == .accepted)
        for _ in 1..<1_000 {
            guard case .done(let check) = harness.verify("alice", "s3cret", completion: { _ in }) else {
                Issue.record("a verified login went to crypt(3) again")
                return
            }
            #expect(check == .accepted)
        }
        #expect(harness.counters.verifications == 1)
        #expect(harness.counters.cacheHits == 999)
    }

    @Test func aVerifiedLoginIsCheckedWithCryptAgainOnceItsLifetimeEnds() throws {
        let harness = try Harness(users: ["alice": try Self.bcrypt("s3cret")])
        #expect(harness.check("alice", "s3cret") == .accepted)
        harness.setTime(VerifiedCredentials.lifetimeMillis - 1)
        #expect(harness.check("alice", "s3cret") == .accepted)
        #expect(harness.counters.verifications == 1)
        harness.setTime(VerifiedCredentials.lifetimeMillis)
        #expect(harness.check("alice", "s3cret") == .accepted)
        #expect(harness.counters.verifications == 2)
    }

    @Test func loginsThatQueuedBehindOneAnotherShareOneCryptCall() throws {
        let harness = try Harness(users: ["alice": try Self.bcrypt("s3cret")])
        var answers: [CredentialCheck] = []
        for _ in 0..<2 {
            guard case .pending = harness.verify("alice", "s3cret", completion: { [base = harness.base] in
                answers.append($0)
                if answers.count == 2 { base.loopBreak() }
            }) else {
                Issue.record("a login nobody verified yet was answered at once")
                return
            }
        }
        harness.runLoop()
        #expect(answers == [.accepted, .accepted])
        #expect(harness.counters.verifications == 1)
        #expect(harness.counters.cacheHits == 1)
    }

    @Test func aWrongPasswordIsRefusedWithAReasonThatDoesNotHoldIt() throws {
        let harness = try Harness(users: ["alice": try Self.bcrypt("s3cret")])
        let check = harness.check("alice", "hunter2-guess")
        #expect(check == .refused(reason: "wrong password"))
        #expect(!"\(String(describing: check))".contains("hunter2-guess"))
        #expect(harness.counters.failures[.wrongPassword] == 1)
        #expect(harness.counters.verifications == 1)
        #expect(harness.check("alice", "hunter2-guess") == .refused(reason: "wrong password"))
        #expect(harness.counters.verifications == 2)
    }

    @Test func anUnknownUserIsCheckedAgainstTheDecoyHashAndRefused() throws {
        let harness = try Harness(users: ["alice": try Self.bcrypt("s3cret")])
        guard case .pending = harness.verify("mallory", "s3cret", completion: { _ in }) else {
            Issue.record("an unknown user was answered without a check, faster than a listed user")
            return
        }
        #expect(harness.check("mallory", "an0ther") == .refused(reason: "unknown user"))
        #expect(harness.counters.verifications == 2)
        #expect(harness.counters.failures[.unknownUser] == 2)
    }

    /// Sends every login before any answer can arrive, then runs the loop until all are answered.
    func burst(_ harness: Harness, _ logins: [(user: String, password: String, client: IPAddress)]) -> [CredentialCheck?] {
        var answers = [CredentialCheck?](repeating: nil, count: logins.count)
        var unanswered = logins.count
        for (index, login) in logins.enumerated() {
            let lookup = harness.verify(login.user, login.password, client: login.client) { [base = harness.base] check in
                answers[index] = check
                unanswered -= 1
                if unanswered == 0 { base.loopBreak() }
            }
            if case .done(let check) = lookup {
                answers[index] = check
                unanswered -= 1
            }
        }
        if unanswered > 0 { harness.runLoop() }
        return answers
    }

    @Test func aBurstOfGuessesFromOneClientIsHeldBackAfterTheAllowanceWithTheRightPasswordLast() throws {
        let harness = try Harness(users: ["alice": try Self.bcrypt("s3cret")])
        let allowance = LoginThrottle.Settings().allowedFailures
        let guesses = (0..<29).map { (user: "alice", password: "guess\($0)", client: client) }
        let answers = burst(harness, guesses + [(user: "alice", password: "s3cret", client: client)])
        #expect(answers.last == .refused(reason: "held back after repeated failures, 10 s left"))
        #expect(answers.allSatisfy { $0 != .accepted && $0 != nil })
        #expect(harness.counters.verifications == UInt64(allowance + 1))
    }

    @Test func aRightLoginFromAnotherClientIsCheckedBeforeTheRestOfABurst() throws {
        // Cost 12: a quarter of a second a check, so every login below is queued while the first is checked.
        let harness = try Harness(users: ["alice": try CryptWorkspaceTests.htpasswd("B -C 12", password: "s3cret")])
        var order: [String] = []
        var unanswered = 6
        for index in 0..<5 {
            _ = harness.verify("alice", "guess\(index)", client: client) { [base = harness.base] _ in
                order.append("guess")
                unanswered -= 1
                if unanswered == 0 { base.loopBreak() }
            }
        }
        _ = harness.verify("alice", "s3cret", client: IPAddress("127.0.0.2")!) { [base = harness.base] check in
            order.append(check == .accepted ? "right" : "refused")
            unanswered -= 1
            if unanswered == 0 { base.loopBreak() }
        }
        harness.runLoop()
        #expect(order.firstIndex(of: "right").map { $0 <= 1 } == true, "answered in the order \(order)")
    }

    @Test func theAnswerRunsOnTheAskingLoopsThread() throws {
        let harness = try Harness(users: ["alice": try Self.bcrypt("s3cret")])
        let asking = pthread_self()
        var onAskingThread = false
        guard case .pending = harness.verify("alice", "s3cret", completion: { [base = harness.base] _ in
            onAskingThread = pthread_equal(pthread_self(), asking) != 0
            base.loopBreak()
        }) else {
            Issue.record("a login nobody verified yet was answered at once")
            return
        }
        harness.runLoop()
        #expect(onAskingThread)
    }

    @Test func aCancelledLoginIsNeverAnswered() throws {
        let harness = try Harness(users: ["alice": try Self.bcrypt("s3cret"), "bob": try Self.bcrypt("other")])
        var cancelledAnswered = false
        guard case .pending(let handle) = harness.verify("alice", "s3cret", completion: { _ in cancelledAnswered = true }) else {
            Issue.record("a login nobody verified yet was answered at once")
            return
        }
        handle.cancel()
        // Asked after the cancelled one, so answered after it: the loop has seen both once this arrives.
        #expect(harness.check("bob", "other") == .accepted)
        #expect(handle.isFinished)
        #expect(!cancelledAnswered)
    }

    @Test func aChangedPasswordFileForgetsVerifiedLogins() throws {
        let harness = try Harness(users: ["alice": try Self.bcrypt("s3cret")])
        #expect(harness.check("alice", "s3cret") == .accepted)
        harness.service.replaceUsers(PasswordFile(hashes: ["alice": try Self.bcrypt("n3w")]))
        #expect(harness.check("alice", "s3cret") == .refused(reason: "wrong password"))
        #expect(harness.check("alice", "n3w") == .accepted)
        #expect(harness.counters.verifications == 3)
    }

    @Test func aClientThatFailedTooOftenIsRefusedAtOnceEvenWithTheRightPassword() throws {
        var throttle = LoginThrottle.Settings()
        throttle.allowedFailures = 2
        let harness = try Harness(users: ["alice": try Self.bcrypt("s3cret")], throttle: throttle)
        #expect(harness.check("alice", "s3cret") == .accepted)
        for now in 1...3 {
            harness.setTime(Int64(now))
            #expect(harness.check("nobody", "guess") == .refused(reason: "unknown user"))
        }
        harness.setTime(4)
        guard case .done(let check) = harness.verify("alice", "s3cret", completion: { _ in }) else {
            Issue.record("a held-back client's login was checked")
            return
        }
        #expect(check == .refused(reason: "held back after repeated failures, 10 s left"))
        #expect(harness.check("alice", "s3cret", client: IPAddress("127.0.0.2")!) == .accepted)
        harness.setTime(3 + throttle.initialHoldMillis)
        #expect(harness.check("alice", "s3cret") == .accepted)
        #expect(harness.counters.failures[.heldBack] == 1)
    }

    @Test func stoppingLeavesQueuedLoginsUnchecked() throws {
        let harness = try Harness(users: ["alice": try CryptWorkspaceTests.htpasswd("B -C 12", password: "s3cret")])
        let queued = 10
        for index in 0..<queued {
            _ = harness.verify("alice", "guess\(index)", client: IPAddress("127.0.1.\(index + 1)")!) { _ in }
        }
        harness.service.stop()
        // The check that had begun finishes; the rest would take seconds each at cost 12.
        #expect(harness.counters.verifications <= 1)
    }
}

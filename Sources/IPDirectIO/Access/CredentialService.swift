import IPDirectCore
import Synchronization

/// A login waiting in the `LoginQueue` for the crypt thread.
///
/// `@unchecked Sendable`: the crypt thread only carries the waiter; its handle is touched on the asking
/// loop's thread alone, where `CredentialWaiter.answer` posts it.
struct QueuedLogin: @unchecked Sendable {
    let waiter: CredentialWaiter
    let user: String
    let password: String
}

/// What the workers and the crypt thread share, behind one lock.
struct CredentialState {
    var users: PasswordFile
    /// Bumped whenever `users` changes, so a hash that began on the old file does not fill the new cache.
    var generation = 0
    var verified = VerifiedCredentials()
    var queue: LoginQueue<QueuedLogin>
    /// Whether a job that takes logins from `queue` is posted to the crypt thread and not yet done.
    var checkerPosted = false
    /// Set by `stop`: logins still queued are not checked, since the loops that would get the answers
    /// have stopped, and checking them could outlast systemd's stop timeout (a full queue of cost-12
    /// bcrypt checks takes minutes).
    var stopping = false
    var counters = AuthCounters()
}

/// Proxy logins for every worker. A login from a client that is held back, or that crypt(3) accepted
/// recently, is answered at once on the worker that asked; anything else waits in the `LoginQueue` and is
/// hashed on the crypt thread (bcrypt costs tens of milliseconds, which no event loop may spend), then
/// answered through the asking worker's mailbox. A user the file does not list is hashed too, against the
/// file's decoy hash, so a refusal takes as long whether or not the user exists. The crypt thread looks in
/// the cache again before hashing, so logins with the same user and password from different clients that
/// queued up behind one another cost one hash.
///
/// `state` is what other threads touch, under its lock; the crypt(3) workspace is the crypt loop's own.
final class CredentialService: Sendable {
    let state: Mutex<CredentialState>
    private let digester: CredentialDigester
    private let loop: ServiceLoop<CryptWorkspace>
    /// Milliseconds of a monotonic clock, for the cache's lifetime and the slow-down; tests pass their own.
    private let clock: @Sendable () -> Int64

    init(users: PasswordFile, throttle: LoginThrottle.Settings = LoginThrottle.Settings(),
         queue: LoginQueue<QueuedLogin>.Settings = LoginQueue<QueuedLogin>.Settings(),
         clock: @escaping @Sendable () -> Int64 = { MonotonicClock.nowMicros() / 1000 }) throws(StartupError) {
        state = Mutex(CredentialState(users: users, queue: LoginQueue(settings: queue, throttle: throttle)))
        self.clock = clock
        digester = try CredentialDigester()
        loop = try ServiceLoop(named: "crypt") { _, _ in CryptWorkspace() }
    }

    /// Starts the crypt thread.
    func start() {
        loop.start()
    }

    /// Stops the crypt thread once the check in progress is done; queued logins are left unchecked.
    func stop() {
        state.withLock { $0.stopping = true }
        loop.stop()
    }

    /// Thread-safe: the users of a reloaded `auth_file`. When they changed, every cached login is forgotten;
    /// returns whether they did.
    @discardableResult
    func replaceUsers(_ users: PasswordFile) -> Bool {
        state.withLock { state in
            guard state.users != users else { return false }
            state.users = users
            state.generation += 1
            state.verified.removeAll()
            return true
        }
    }

    func counters() -> AuthCounters {
        state.withLock { $0.counters }
    }

    /// Called on a worker thread; a login that needs crypt(3) is answered later on `replyTo`, the worker's
    /// own mailbox.
    func verify(user: String, password: String, client: IPAddress, replyTo: LoopMailbox,
                completion: @escaping (CredentialCheck) -> Void) -> CredentialLookup {
        guard let digest = digester.digest(user: user, password: password) else {
            return refuse(.error, "cannot make the login cache key", client: client, user: user, hold: .allowed)
        }
        enum Next {
            case accept
            case refuse(AuthFailureReason, String, hold: LoginThrottle.Verdict)
            case wait(postChecker: Bool)
        }
        let handle = CredentialHandle(completion: completion)
        let login = QueuedLogin(waiter: CredentialWaiter(mailbox: replyTo, handle: handle, client: client, user: user),
                                user: user, password: password)
        let now = clock()
        let next: Next = state.withLock { state in
            if case .heldBack(let left) = state.queue.verdict(for: client, now: now) {
                return .refuse(.heldBack, Self.heldBackText(left), hold: .allowed)
            }
            if state.verified.lookUp(digest, now: now) {
                state.counters.cacheHits += 1
                return .accept
            }
            guard state.users.decoyHash != nil else {
                // No users at all: there is nothing a check could reveal.
                return .refuse(.unknownUser, "unknown user", hold: state.queue.failedUnchecked(client, now: now))
            }
            switch state.queue.enqueue(login, client: client, digest: digest, now: now) {
            case .queued:
                let post = !state.checkerPosted
                state.checkerPosted = true
                return .wait(postChecker: post)
            case .heldBack(let left):
                return .refuse(.heldBack, Self.heldBackText(left), hold: .allowed)
            case .busy(let why):
                return .refuse(.busy, why, hold: .allowed)
            }
        }
        switch next {
        case .accept:
            return .done(.accepted)
        case .refuse(let reason, let text, let hold):
            return refuse(reason, text, client: client, user: user, hold: hold)
        case .wait(let postChecker):
            if postChecker { loop.post { [self] workspace in checkQueuedLogins(with: workspace) } }
            return .pending(handle)
        }
    }

    /// A login the crypt thread took from the queue, with what it is checked against.
    private struct TakenLogin {
        let entry: LoginQueue<QueuedLogin>.Entry
        /// The user's hash, or the file's decoy hash for a user the file does not list.
        let hash: String
        let userListed: Bool
        /// The file the hash came from.
        let generation: Int
    }

    /// On the crypt thread: checks queued logins in the queue's order until none is left.
    private func checkQueuedLogins(with workspace: CryptWorkspace) {
        while let taken = takeNextLogin() {
            // The cache first, since an earlier check may just have verified the same login.
            let cached = taken.userListed && state.withLock { state in
                taken.generation == state.generation && state.verified.lookUp(taken.entry.digest, now: clock())
            }
            // A user the file does not list is refused whatever the decoy hash says.
            let hashMatched = cached || workspace.matches(password: taken.entry.login.password, hash: taken.hash)
            settle(taken, matched: hashMatched && taken.userListed, cached: cached)
        }
    }

    /// The next login to check; nil once the queue is empty, which also lets the next login post a new checker.
    private func takeNextLogin() -> TakenLogin? {
        state.withLock { state in
            guard !state.stopping, let entry = state.queue.next() else {
                state.checkerPosted = false
                return nil
            }
            let listed = state.users.hashes[entry.login.user]
            // A file reloaded without users has no decoy: an empty hash, which crypt(3) refuses at once.
            return TakenLogin(entry: entry, hash: listed ?? state.users.decoyHash ?? "", userListed: listed != nil,
                              generation: state.generation)
        }
    }

    /// Records a checked login, answers it and the logins of its client that it settled.
    private func settle(_ taken: TakenLogin, matched: Bool, cached: Bool) {
        let now = clock()
        let entry = taken.entry
        let reason: AuthFailureReason = taken.userListed ? .wrongPassword : .unknownUser
        let settled = state.withLock { state in
            if cached { state.counters.cacheHits += 1 } else { state.counters.verifications += 1 }
            if matched, !cached, taken.generation == state.generation { state.verified.insert(entry.digest, now: now) }
            let settled = state.queue.finished(entry, matched: matched, now: now)
            if matched {
                state.counters.cacheHits += UInt64(settled.sameLogin.count)
            } else {
                for _ in 0...settled.sameLogin.count { state.counters.countFailure(reason) }
            }
            for _ in settled.heldBack { state.counters.countFailure(.heldBack) }
            return settled
        }
        let text = taken.userListed ? "wrong password" : "unknown user"
        let check: CredentialCheck = matched ? .accepted : .refused(reason: text)
        for (index, answered) in ([entry] + settled.sameLogin).enumerated() {
            if !matched {
                // The last failure counted is the one that began the hold, if one began.
                Self.log(reason, text, client: answered.client, user: answered.login.user,
                         hold: index == settled.sameLogin.count ? settled.hold : .allowed)
            }
            answered.login.waiter.answer(check)
        }
        if case .heldBack(let left) = settled.hold {
            for refused in settled.heldBack {
                Self.log(.heldBack, Self.heldBackText(left), client: refused.client, user: refused.login.user, hold: .allowed)
                refused.login.waiter.answer(.refused(reason: Self.heldBackText(left)))
            }
        }
    }

    private static func heldBackText(_ millisLeft: Int64) -> String {
        "held back after repeated failures, \(seconds(millisLeft)) s left"
    }

    private func refuse(_ reason: AuthFailureReason, _ text: String, client: IPAddress, user: String,
                        hold: LoginThrottle.Verdict) -> CredentialLookup {
        state.withLock { $0.counters.countFailure(reason) }
        Self.log(reason, text, client: client, user: user, hold: hold)
        return .done(.refused(reason: text))
    }

    /// The user name comes from the client: quoted, escaped and cut short, so it can neither forge fields or
    /// lines nor make one huge line. A client already held back is logged at debug only, or a guessing client
    /// would fill the log at its own pace.
    private static func log(_ reason: AuthFailureReason, _ text: String, client: IPAddress, user: String,
                            hold: LoginThrottle.Verdict) {
        let line = "event=auth_failed client=\(client) user=\(LogQuote.quoted(user)) reason=\(reason) details=\"\(text)\""
        if reason == .heldBack { Logger.debug(line) } else { Logger.warning(line) }
        if case .heldBack(let millis) = hold {
            Logger.warning("event=auth_held_back client=\(client) hold_ms=\(millis) note=\"logins from this client are refused unchecked until then\"")
        }
    }

    /// Whole seconds, rounded up so a hold never reads as 0 s left.
    private static func seconds(_ millis: Int64) -> Int64 {
        (millis + 999) / 1000
    }
}

import CEvent
import Glibc
import IPDirectCore
import Synchronization

/// What the workers and the crypt thread share, behind one lock.
struct CredentialState {
    var users: PasswordFile
    /// Bumped whenever `users` changes, so a hash that began on the old file does not fill the new cache.
    var generation = 0
    var verified = VerifiedCredentials()
    var throttle: LoginThrottle
    /// Logins posted to the crypt thread and not yet answered.
    var waitingHashes = 0
    var counters = AuthCounters()
}

/// Proxy logins for every worker. A login from a client that is held back, for an unknown user, or that
/// crypt(3) accepted recently is answered at once on the worker that asked; anything else is hashed on the
/// crypt thread (bcrypt costs tens of milliseconds, which no event loop may spend) and answered through the
/// asking worker's mailbox. The crypt thread looks in the cache again before hashing, so logins with the same
/// user and password that queued up behind one another (a browser opening six connections) cost one hash.
///
/// `@unchecked Sendable`: `workspace` and the crypt loop are touched only on the crypt thread (through
/// `mailbox`) once `start` has run; `state` is what other threads touch, under its lock.
final class CredentialService: @unchecked Sendable {
    let state: Mutex<CredentialState>
    private let digester: CredentialDigester
    private let base = EventBase()
    private let mailbox: LoopMailbox
    private let workspace = CryptWorkspace()
    private var thread: pthread_t?
    /// Milliseconds of a monotonic clock, for the cache's lifetime and the slow-down; tests pass their own.
    private let clock: @Sendable () -> Int64

    /// Logins waiting for crypt(3) at once; more are refused rather than queued, so a flood of guesses from
    /// many addresses cannot make every right login wait (64 bcrypt hashes of cost 10 take about five seconds).
    static let maximumWaitingHashes = 64

    init(users: PasswordFile, throttle: LoginThrottle.Settings = LoginThrottle.Settings(),
         clock: @escaping @Sendable () -> Int64 = { MonotonicClock.nowMicros() / 1000 }) throws(StartupError) {
        state = Mutex(CredentialState(users: users, throttle: LoginThrottle(settings: throttle)))
        self.clock = clock
        digester = try CredentialDigester()
        mailbox = try LoopMailbox(base: base)
    }

    /// Starts the crypt thread.
    func start() {
        thread = LoopThread.start { [self] in base.dispatch() }
    }

    /// Stops the crypt thread once the hashes queued before this call are done.
    func stop() {
        guard let thread else { return }
        mailbox.post { [self] in base.loopBreak() }
        pthread_join(thread, nil)
        self.thread = nil
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
            case hash(String, generation: Int)
        }
        let now = clock()
        let next: Next = state.withLock { state in
            // Before the cache: a held-back client could otherwise go on guessing at cache speed.
            if case .heldBack(let left) = state.throttle.verdict(for: client, now: now) {
                return .refuse(.heldBack, "held back after repeated failures, \(Self.seconds(left)) s left", hold: .allowed)
            }
            if state.verified.lookUp(digest, now: now) {
                state.counters.cacheHits += 1
                return .accept
            }
            guard let hash = state.users.hashes[user] else {
                return .refuse(.unknownUser, "unknown user", hold: state.throttle.failed(client, now: now))
            }
            guard state.waitingHashes < Self.maximumWaitingHashes else {
                return .refuse(.busy, "too many logins waiting to be checked", hold: .allowed)
            }
            state.waitingHashes += 1
            return .hash(hash, generation: state.generation)
        }
        switch next {
        case .accept:
            return .done(.accepted)
        case .refuse(let reason, let text, let hold):
            return refuse(reason, text, client: client, user: user, hold: hold)
        case .hash(let hash, let generation):
            let handle = CredentialHandle(completion: completion)
            let waiter = CredentialWaiter(mailbox: replyTo, handle: handle, client: client, user: user)
            mailbox.post { [self] in
                waiter.answer(check(password, against: hash, digest: digest, generation: generation, for: waiter))
            }
            return .pending(handle)
        }
    }

    /// On the crypt thread: the cache first, since an earlier job may just have verified the same login.
    private func check(_ password: String, against hash: String, digest: VerifiedCredentials.Digest, generation: Int,
                       for waiter: CredentialWaiter) -> CredentialCheck {
        let cached = state.withLock { state in
            guard state.verified.lookUp(digest, now: clock()) else { return false }
            state.waitingHashes -= 1
            state.counters.cacheHits += 1
            return true
        }
        if cached { return .accepted }
        let matched = workspace.matches(password: password, hash: hash)
        let now = clock()
        let hold: LoginThrottle.Verdict = state.withLock { state in
            state.waitingHashes -= 1
            state.counters.verifications += 1
            guard !matched else {
                if generation == state.generation { state.verified.insert(digest, now: now) }
                return .allowed
            }
            state.counters.countFailure(.wrongPassword)
            return state.throttle.failed(waiter.client, now: now)
        }
        if matched { return .accepted }
        Self.log(.wrongPassword, "wrong password", client: waiter.client, user: waiter.user, hold: hold)
        return .refused(reason: "wrong password")
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

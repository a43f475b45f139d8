/// Which proxy logins the one password checker (crypt(3), milliseconds to a quarter second each) takes, and
/// in what order, so that sending logins at once buys a client neither more guesses nor more of the
/// checker's time than sending them one after another.
///
/// - A client (an address, or a /64: `LoginThrottle.key`) has one line of waiting logins and never more
///   than one login being checked: the next waits until the one before it has counted as a success or a
///   failure, so a burst meets the slow-down exactly where the same logins sent one at a time would.
/// - Clients take turns: the checker takes the first login of each waiting client in the order the clients
///   began to wait, so a login waits for at most one check per other waiting client, however many logins
///   those clients sent.
/// - A failure that begins a hold refuses the rest of that client's line unchecked. The logins next in the
///   line with the same user and password as the one just checked get its answer without a check of their
///   own, each counted as a failure when it is one, as it would be one at a time: a browser opening many
///   connections with one login costs one check, and a repeated guess counts as often as it is sent.
///
/// `Login` is what the caller needs to answer a login later. Time comes in as `now`, in milliseconds of any
/// monotonic clock.
public struct LoginQueue<Login> {
    public struct Settings: Sendable, Equatable {
        /// Logins one client may have waiting. Browsers open up to 32 connections to one proxy at once,
        /// all with the same login, which then costs one check.
        public var maximumWaitingPerClient = 32
        /// Clients that may have logins waiting at once. A login waits for at most one check per other
        /// waiting client: at bcrypt's usual tens of milliseconds, 64 keep any login's wait to seconds.
        public var maximumWaitingClients = 64
        /// Clients of one network (an IPv4 /24, an IPv6 /48: what one customer is usually given) that may
        /// have logins waiting at once, so a network's many addresses cannot take every place in the queue
        /// and shut everyone else's logins out.
        public var maximumWaitingClientsPerNetwork = 8

        public init() {}
    }

    /// What became of a login handed to `enqueue`.
    public enum Admission: Equatable, Sendable {
        /// It waits for the checker (`next`).
        case queued
        /// Refused unchecked: the client is held back (`LoginThrottle`).
        case heldBack(millisLeft: Int64)
        /// Refused unchecked: too many logins are waiting already; says which limit.
        case busy(String)
    }

    /// One waiting login.
    public struct Entry {
        public let client: IPAddress
        /// The user and password, as a keyed digest: logins with equal digests share one check.
        public let digest: VerifiedCredentials.Digest
        public let login: Login
    }

    /// Logins answered by the check of another one, or refused unchecked when a check began a hold.
    public struct Settled {
        /// Same user and password as the login just checked, next in its client's line: they take its answer.
        public var sameLogin: [Entry] = []
        /// Refused unchecked because the check that just failed began a hold.
        public var heldBack: [Entry] = []
        /// The hold that check began, if it did.
        public var hold: LoginThrottle.Verdict = .allowed
    }

    public let settings: Settings
    public private(set) var throttle: LoginThrottle
    private var lines: [IPAddress: [Entry]] = [:]
    /// Clients with logins waiting and none being checked, in the order they take their turns.
    private var turns: [IPAddress] = []
    /// The client whose login is being checked.
    private var checking: IPAddress?

    public init(settings: Settings = Settings(), throttle: LoginThrottle.Settings = LoginThrottle.Settings()) {
        self.settings = settings
        self.throttle = LoginThrottle(settings: throttle)
    }

    /// Logins waiting, the one being checked not counted.
    public var waitingCount: Int { lines.values.reduce(0) { $0 + $1.count } }

    /// Whether `client` is held back now; checked before anything else, the cache of verified logins
    /// included, or a held-back client could go on guessing at cache speed.
    public func verdict(for client: IPAddress, now: Int64) -> LoginThrottle.Verdict {
        throttle.verdict(for: client, now: now)
    }

    /// A client failed without a check (a file with no users at all): counted as a checked failure is.
    @discardableResult
    public mutating func failedUnchecked(_ client: IPAddress, now: Int64) -> LoginThrottle.Verdict {
        throttle.failed(client, now: now)
    }

    /// Puts a login in its client's line, unless the client is held back or a limit is reached.
    public mutating func enqueue(_ login: Login, client: IPAddress, digest: VerifiedCredentials.Digest,
                                 now: Int64) -> Admission {
        if case .heldBack(let left) = throttle.verdict(for: client, now: now) { return .heldBack(millisLeft: left) }
        let key = LoginThrottle.key(client)
        let line = lines[key]
        if let line, line.count >= settings.maximumWaitingPerClient {
            return .busy("too many logins from this client waiting to be checked")
        }
        if line == nil {
            guard lines.count < settings.maximumWaitingClients else {
                return .busy("too many clients with logins waiting to be checked")
            }
            let network = Self.network(key)
            guard lines.keys.count(where: { Self.network($0) == network }) < settings.maximumWaitingClientsPerNetwork else {
                return .busy("too many clients of this network with logins waiting to be checked")
            }
            if checking != key { turns.append(key) }
        }
        lines[key, default: []].append(Entry(client: client, digest: digest, login: login))
        return .queued
    }

    /// The network a client key belongs to: its /24 for IPv4, its /48 for IPv6.
    static func network(_ key: IPAddress) -> IPAddress {
        let ipv4NetworkBits = 24, ipv6NetworkBits = 48
        return IPPrefix.masked(key, to: key.isIPv6 ? ipv6NetworkBits : ipv4NetworkBits)
    }

    /// The login to check now: the first of the client whose turn it is. nil while another is being checked
    /// or nothing waits.
    public mutating func next() -> Entry? {
        guard checking == nil, !turns.isEmpty else { return nil }
        let key = turns.removeFirst()
        guard var line = lines[key], !line.isEmpty else { return nil }
        let entry = line.removeFirst()
        lines[key] = line.isEmpty ? nil : line
        checking = key
        return entry
    }

    /// The login `next` gave is answered: `matched` says whether its password was right. A wrong one
    /// counts as a failure of its client. Returns the logins of that client settled along with it.
    public mutating func finished(_ entry: Entry, matched: Bool, now: Int64) -> Settled {
        let key = LoginThrottle.key(entry.client)
        guard checking == key else { return Settled() }
        checking = nil
        var settled = Settled()
        var line = lines[key] ?? []
        if !matched { settled.hold = throttle.failed(entry.client, now: now) }
        // The logins next in line with the same user and password would get the same answer one at a time:
        // they get it now, each counted as it would have been, without a check of their own.
        while case .allowed = settled.hold, let first = line.first, first.digest == entry.digest {
            settled.sameLogin.append(line.removeFirst())
            if !matched { settled.hold = throttle.failed(entry.client, now: now) }
        }
        if case .heldBack = settled.hold {
            settled.heldBack = line
            line = []
        }
        lines[key] = line.isEmpty ? nil : line
        if !line.isEmpty { turns.append(key) }
        return settled
    }
}

extension LoginQueue: Sendable where Login: Sendable {}
extension LoginQueue.Entry: Sendable where Login: Sendable {}
extension LoginQueue.Settled: Sendable where Login: Sendable {}

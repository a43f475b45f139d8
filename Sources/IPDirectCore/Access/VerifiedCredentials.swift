/// Logins crypt(3) accepted recently, so a client that sends the same `Proxy-Authorization` on every
/// request costs one slow hash, not one per request. Entries are digests the caller made with a keyed hash
/// (never a password), last `lifetimeMillis` and are forgotten least recently used first past `capacity`.
/// Time comes in as `now`, in milliseconds of any monotonic clock.
public struct VerifiedCredentials: Sendable {
    /// A keyed digest of one user and password (HMAC-SHA-256: 32 bytes).
    public struct Digest: Hashable, Sendable {
        let bytes: [UInt8]

        public init(bytes: [UInt8]) {
            self.bytes = bytes
        }
    }

    /// Long enough that a browser's requests over a working session cost one crypt(3) call; short enough
    /// that a right password is checked against the file again every few minutes.
    public static let lifetimeMillis: Int64 = 600_000
    /// Distinct users and passwords remembered at once; beyond that the least recently used is checked again.
    public static let capacity = 1_024

    private var expiries: LRUStore<Digest, Int64>

    public init(capacity: Int = VerifiedCredentials.capacity) {
        expiries = LRUStore(capacity: capacity)
    }

    public var count: Int { expiries.count }

    /// Whether `digest` was accepted less than `lifetimeMillis` ago; an expired entry is dropped, a live
    /// one becomes the most recently used.
    public mutating func lookUp(_ digest: Digest, now: Int64) -> Bool {
        guard let expiry = expiries.use(digest) else { return false }
        guard expiry > now else {
            expiries.remove(digest)
            return false
        }
        return true
    }

    public mutating func insert(_ digest: Digest, now: Int64) {
        expiries.set(digest, now + Self.lifetimeMillis)
    }

    /// Forgets every entry: the password file changed.
    public mutating func removeAll() {
        expiries.removeAll()
    }
}

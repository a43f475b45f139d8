/// Proxy logins as plain numbers, shared by every worker (they live beside the verified-credential cache,
/// behind the same lock). Label values are a fixed set, never user names or addresses.
public struct AuthCounters: Sendable, Equatable {
    /// crypt(3) calls: each costs milliseconds (bcrypt: tens of them) of a thread.
    public var verifications: UInt64 = 0
    /// Logins answered from the cache of verified credentials, without crypt(3).
    public var cacheHits: UInt64 = 0
    /// Refused logins, by why.
    public var failures: [AuthFailureReason: UInt64] = [:]

    public init() {}

    public mutating func countFailure(_ reason: AuthFailureReason) {
        failures[reason, default: 0] += 1
    }

    func render(_ page: inout PrometheusText, prefix p: String) {
        page.single(p + "auth_verifications_total", .counter,
                    help: "Passwords checked with crypt(3) against auth_file.", verifications)
        page.single(p + "auth_cache_hits_total", .counter,
                    help: "Logins accepted from the cache of verified credentials.", cacheHits)
        page.family(p + "auth_failures_total", .counter, help: "Logins refused, by reason.")
        for reason in AuthFailureReason.allCases {
            page.sample(p + "auth_failures_total", labels: [("reason", reason.rawValue)], failures[reason] ?? 0)
        }
    }
}

/// Why a login was refused, as `ipdirect_auth_failures_total` labels it.
public enum AuthFailureReason: String, CaseIterable, Sendable, CustomStringConvertible {
    case unknownUser = "unknown_user"
    case wrongPassword = "wrong_password"
    /// The client failed too often and is held back (`LoginThrottle`).
    case heldBack = "held_back"
    /// Too many checks were already waiting for crypt(3).
    case busy
    /// The check itself could not be made (OpenSSL failed to make the cache key).
    case error

    public var description: String { rawValue }
}

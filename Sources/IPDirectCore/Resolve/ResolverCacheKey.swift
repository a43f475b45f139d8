/// What the resolver cache is keyed by: a normalised host name and an address family.
///
/// A request reads both families of one name, so the name is hashed once, when the key is made, and the
/// other family's key (`inFamily`) reuses that hash.
public struct ResolverCacheKey: PrehashedKey, Sendable, CustomStringConvertible {
    /// Lower case, without the trailing root dot, and hashed once.
    public let hashedName: HashedHostName
    public let family: AddressFamily

    /// Normalises `name`, so `WWW.Example.COM.` and `www.example.com` share one entry.
    public init(name: String, family: AddressFamily) {
        self.init(normalisedName: ResolverCacheKey.normalised(name), family: family)
    }

    /// For a name `normalised` already returned.
    public init(normalisedName name: String, family: AddressFamily) {
        self.init(hashedName: HashedHostName(name), family: family)
    }

    /// For a normalised name that was hashed already.
    public init(hashedName: HashedHostName, family: AddressFamily) {
        self.hashedName = hashedName
        self.family = family
    }

    public var name: String { hashedName.text }

    /// The key of the same name in `family`.
    public func inFamily(_ family: AddressFamily) -> ResolverCacheKey {
        ResolverCacheKey(hashedName: hashedName, family: family)
    }

    public static func == (first: ResolverCacheKey, second: ResolverCacheKey) -> Bool {
        first.family == second.family && first.hashedName == second.hashedName
    }

    public var prehash: Int { PrehashedKeys.adding(family == .v6 ? 1 : 0, to: hashedName.textHash) }

    /// DNS names compare case-insensitively in ASCII only (RFC 4343 §3), so only
    /// A–Z are folded; other bytes pass through untouched. A single trailing dot
    /// names the root (RFC 1034 §3.1) and denotes the same absolute name.
    public static func normalised(_ name: String) -> String {
        HostName.normalized(name)
    }

    public var description: String { "\(name)/\(family)" }
}

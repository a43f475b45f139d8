//// What the resolver cache is keyed by: a normalised host name and an address family.
///
/// A request reads both families of one name, so the name is hashed once, when the key is made, and the
/// other family's key (`inFamily`) reuses that hash: hashing a key hashes two numbers, not the name.
public struct ResolverCacheKey: Hashable, Sendable, CustomStringConvertible {
    /// Lower case, without the trailing root dot.
    public let name: String
    public let family: AddressFamily
    private let nameHash: Int

    /// Normalises `name`, so `WWW.Example.COM.` and `www.example.com` share one entry.
    public init(name: String, family: AddressFamily) {
        self.init(normalisedName: ResolverCacheKey.normalised(name), family: family)
    }

    /// For a name `normalised` already returned.
    public init(normalisedName name: String, family: AddressFamily) {
        self.name = name
        self.family = family
        nameHash = name.hashValue
    }

    private init(name: String, family: AddressFamily, nameHash: Int) {
        self.name = name
        self.family = family
        self.nameHash = nameHash
    }

    /// The key of the same name in `family`.
    public func inFamily(_ family: AddressFamily) -> ResolverCacheKey {
        ResolverCacheKey(name: name, family: family, nameHash: nameHash)
    }

    public static func == (first: ResolverCacheKey, second: ResolverCacheKey) -> Bool {
        first.nameHash == second.nameHash && first.family == second.family && first.name == second.name
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(nameHash)
        hasher.combine(family)
    }

    /// DNS names compare case-insensitively in ASCII only (RFC 4343 §3), so only
    /// A–Z are folded; other bytes pass through untouched. A single trailing dot
    /// names the root (RFC 1034 §3.1) and denotes the same absolute name.
    public static func normalised(_ name: String) -> String {
        HostName.normalized(name)
    }

    public var description: String { "\(name)/\(family)" }
}

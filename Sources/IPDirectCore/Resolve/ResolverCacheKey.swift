//// What the resolver cache is keyed by: a normalised host name and an address family.
public struct ResolverCacheKey: Hashable, Sendable, CustomStringConvertible {
    /// Lower case, without the trailing root dot.
    public let name: String
    public let family: AddressFamily

    /// Normalises `name`, so `WWW.Example.COM.` and `www.example.com` share one entry.
    public init(name: String, family: AddressFamily) {
        self.name = ResolverCacheKey.normalised(name)
        self.family = family
    }

    /// DNS names compare case-insensitively in ASCII only (RFC 4343 §3), so only
    /// A–Z are folded; other bytes pass through untouched. A single trailing dot
    /// names the root (RFC 1034 §3.1) and denotes the same absolute name.
    public static func normalised(_ name: String) -> String {
        HostName.normalized(name)
    }

    public var description: String { "\(name)/\(family)" }
}

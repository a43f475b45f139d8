/// Which `[[resolver.httpdns]]` providers are asked for a name, and in which order.
///
/// Alibaba Cloud's and Tencent's HTTPDNS resolve only the domains added to the account, so such a
/// provider carries `domains` and a general one (DoH, JSON) serves the rest:
/// - providers whose `domains` match the name come first, in configured order, wherever they are
///   listed: the account was set up for these names;
/// - then the general providers (no `domains`), in configured order, as the fallback;
/// - a provider whose `domains` do not match is never asked, so its "no such name" for a name it
///   was never meant to answer cannot reach the cache.
/// Demoted providers (just failed, see the resolver's demotions) move behind every provider that is
/// not, in the same order, so a dead endpoint does not cost every name its timeout; they are still
/// asked last.
public struct HTTPDNSProviderSelection: Sendable, Equatable {
    /// Each provider's domains in configured order; empty for a general provider.
    public let domains: [[HostPattern]]

    public init(domains: [[HostPattern]]) {
        self.domains = domains
    }

    public init(_ providers: [HTTPDNSProviderSettings]) {
        self.init(domains: providers.map(\.domains))
    }

    /// Indices into the providers to ask for `name` (lower case, no trailing dot), in order;
    /// `demoted` holds the indices of providers demoted now.
    public func order(for name: String, demoted: Set<Int> = []) -> [Int] {
        let matching = domains.indices.filter { !domains[$0].isEmpty && domains[$0].contains { $0.matches(name) } }
        let general = domains.indices.filter { domains[$0].isEmpty }
        let candidates = matching + general
        return candidates.filter { !demoted.contains($0) } + candidates.filter(demoted.contains)
    }

    /// Whether provider `index` answers only its domains: its negative answer for one of them is then
    /// a failure to fall through, not a fact about the name (the account may just lack the name).
    public func isDomainLimited(_ index: Int) -> Bool {
        !domains[index].isEmpty
    }
}

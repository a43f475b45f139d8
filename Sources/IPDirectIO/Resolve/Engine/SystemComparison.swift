import IPDirectCore

/// Hijack detection (`[resolver] compare_system`): after HTTPDNS answers a name, the system resolver is
/// asked too, and an answer that shares no address with HTTPDNS's is logged (once per name) and counted.
///
/// "No address in common", not "not identical": CDNs hand different resolvers different subsets of
/// their addresses, so partial overlap is normal; a local resolver that answers only addresses the
/// name's own DNS never gives, or NXDOMAIN for a name that exists, is the hijack worth reporting.
final class SystemComparison {
    /// Names reported so far are remembered up to this many, so a flood of names cannot grow memory.
    static let maximumReportedNames = 10_000

    private let system: SystemResolver
    private var reported = Set<String>()

    init(system: SystemResolver) {
        self.system = system
    }

    func compare(_ name: String, httpdns: [IPAddress], provider: String, onDisagreement: @escaping () -> Void) {
        _ = system.lookup(name) { [self] result in
            let systemSays: String
            switch result {
            case .success(let addresses):
                guard Set(addresses).isDisjoint(with: httpdns) else { return }
                systemSays = addresses.map(\.description).joined(separator: ",")
            case .failure(let failure) where failure.reason == .notFound:
                systemSays = "no-such-name"
            case .failure(let failure):
                Logger.debug("event=system_comparison_skipped name=\(name) reason=\"\(failure)\"")
                return
            }
            onDisagreement()
            guard reported.count < Self.maximumReportedNames, reported.insert(name).inserted else { return }
            let httpdnsSays = httpdns.map(\.description).joined(separator: ",")
            Logger.warning("event=system_dns_disagrees name=\(name) httpdns=\(httpdnsSays) provider=\(provider) system=\(systemSays) details=\"the local resolver's answer shares no address with HTTPDNS; it may be hijacked\"")
        }
    }
}

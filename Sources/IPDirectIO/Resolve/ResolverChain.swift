import CEvent
import IPDirectCore

/// A lookup that can be abandoned: once cancelled, its completion is never called.
protocol ResolveHandle: AnyObject {
    func cancel()
    /// True once the completion has run (possibly before the handle was returned).
    var isFinished: Bool { get }
}

/// Runs the sources of `[resolver] order` for one name until one answers.
final class ResolverChain {
    enum Lookup {
        case done(Result<Resolution, ResolveFailure>)
        case pending(ResolveHandle)
    }

    private let order: [ResolverSource]
    private let hosts: [String: [IPAddress]]
    private let system: SystemResolver?

    init(settings: ResolverSettings, hosts: [String: [IPAddress]], system: SystemResolver?) {
        self.order = settings.order
        self.hosts = hosts
        self.system = system
    }

    /// Answers at once for IP literals and `[hosts]` names; otherwise returns a handle and calls
    /// `completion` on the loop thread later.
    func resolve(_ host: String, completion: @escaping (Result<Resolution, ResolveFailure>) -> Void) -> Lookup {
        if let literal = IPAddress(host) {
            return .done(.success(Resolution(addresses: [literal], source: .literal)))
        }
        return resolve(host, sources: order[...], completion: completion)
    }

    private func resolve(_ host: String, sources: ArraySlice<ResolverSource>,
                         completion: @escaping (Result<Resolution, ResolveFailure>) -> Void) -> Lookup {
        var sources = sources
        while let source = sources.popFirst() {
            switch source {
            case .hosts:
                if let addresses = hosts[HostName.normalized(host)] {
                    return .done(.success(Resolution(addresses: addresses, source: .hosts)))
                }
            case .httpdns:
                continue
            case .system:
                guard let system else { continue }
                return .pending(system.lookup(host) { result in
                    completion(result.map { Resolution(addresses: $0, source: .system) })
                })
            }
        }
        let tried = order.map(\.rawValue).joined(separator: ", ")
        return .done(.failure(ResolveFailure(host: host, reason: .failed("no source answered (order: \(tried))"))))
    }
}

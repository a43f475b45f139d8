import IPDirectCore

/// A lookup that can be abandoned: once cancelled, its completion is never called.
protocol ResolveHandle: AnyObject {
    func cancel()
    /// True once the completion has run (possibly before the handle was returned).
    var isFinished: Bool { get }
}

/// A worker's view of name resolution: IP literals and `[hosts]` names are answered on the spot,
/// everything else by the shared `ResolverService` (its cache first, then its sources).
final class ResolverChain {
    enum Lookup {
        case done(Result<Resolution, ResolveFailure>)
        case pending(ResolveHandle)
    }

    private let hosts: [HashedHostName: [IPAddress]]
    private let usesHosts: Bool
    private let service: ResolverService
    /// Where the service sends answers for this loop.
    private let mailbox: LoopMailbox

    init(settings: ResolverSettings, hosts: [String: [IPAddress]], service: ResolverService, mailbox: LoopMailbox) {
        self.hosts = Dictionary(uniqueKeysWithValues: hosts.map { (HashedHostName($0.key), $0.value) })
        // `[hosts]` never waits, so wherever `order` lists it, it is asked before the sources that do.
        self.usesHosts = settings.order.contains(.hosts)
        self.service = service
        self.mailbox = mailbox
    }

    /// Answers at once for IP literals, `[hosts]` names and cached names; otherwise returns a handle and
    /// calls `completion` on this loop's thread later.
    func resolve(_ host: String, completion: @escaping (Result<Resolution, ResolveFailure>) -> Void) -> Lookup {
        if let answer = answerAtOnce(HashedHostName(host)) { return .done(answer) }
        return .pending(query(host, completion: completion))
    }

    /// The answer for IP literals, `[hosts]` names and cached names; nil when the sources must be asked
    /// with `query`.
    /// `host` comes hashed: a request's name was hashed once, when its upstream key was made.
    func answerAtOnce(_ host: HashedHostName) -> Result<Resolution, ResolveFailure>? {
        if IPAddress.mayBeLiteral(host.text), let literal = IPAddress(host.text) {
            return .success(Resolution(addresses: [literal], source: .literal))
        }
        let name = HostName.isNormalized(host.text) ? host : HashedHostName(HostName.normalized(host.text))
        if usesHosts, let addresses = hosts[name] {
            return .success(Resolution(addresses: addresses, source: .hosts))
        }
        return service.cached(name, host: host.text)
    }

    /// Asks the sources for `host`, which `answerAtOnce` could not answer; `completion` runs on this
    /// loop's thread later.
    func query(_ host: String, completion: @escaping (Result<Resolution, ResolveFailure>) -> Void) -> ResolveHandle {
        service.query(host, replyTo: mailbox, completion: completion)
    }
}

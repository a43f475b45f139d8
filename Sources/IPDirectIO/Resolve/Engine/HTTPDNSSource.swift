import IPDirectCore

/// One `[[resolver.httpdns]]` provider as the resolver thread sees it.
protocol HTTPDNSSource: AnyObject {
    /// The configured name; what logs, counters and the cache say answered.
    var name: String { get }
    /// Asks for the A and AAAA records of `name`, failing over across the bootstrap addresses; the
    /// completion runs once, on the resolver thread.
    func resolve(_ name: String, completion: @escaping (Result<NameAnswer, HTTPDNSQueryFailure>) -> Void)
    /// Whether `exchange` can carry a DNS message as it is: only RFC 8484 (`doh`) providers can.
    var carriesDNSMessages: Bool { get }
    /// Sends a relayed query as a DNS message (in the wire form its format wants), failing over across the
    /// bootstrap addresses, and hands back the response message; the completion runs once, on the resolver
    /// thread.
    func exchange(_ relayed: DNSRelayedQuery, completion: @escaping (Result<[UInt8], HTTPDNSQueryFailure>) -> Void)
    /// Closes idle and open connections (shutdown).
    func close()
}

/// Why a provider gave no usable answer for a name, after every bootstrap address was tried.
struct HTTPDNSQueryFailure: Error, CustomStringConvertible {
    var reason: String
    /// Every attempt ended by timing out, so the outcome is counted as a timeout.
    var timedOut: Bool

    init(reason: String, timedOut: Bool) {
        self.reason = reason
        self.timedOut = timedOut
    }

    /// A failure that is not a timeout, described by `problem`.
    init(_ problem: some CustomStringConvertible) {
        self.init(reason: problem.description, timedOut: false)
    }

    var description: String { reason }
}

/// What became of a query relayed to the providers for its name.
enum DNSMessageRelayOutcome {
    /// The response message `provider` gave, unread.
    case answered([UInt8], provider: String)
    /// No `doh` provider serves the name (none configured, or per-domain ones for other names).
    case noProvider
    /// Every provider that serves the name failed; `reason` names each.
    case failed(String)
}

import IPDirectCore

/// `ipdirect resolve NAME`: one name through the same chain, cache and sources the daemon uses, without
/// starting the proxy. The cache file is read, never written, so a running daemon's file is left alone.
public enum SingleNameResolution {
    /// One printed line: an address, how long it may still be used, and who said so.
    public struct Line: Sendable, Equatable, CustomStringConvertible {
        public var address: IPAddress
        /// Seconds; nil where the answer is not cached (hosts, literals).
        public var secondsLeft: Int64?
        public var source: String

        public var description: String {
            "\(address)\tttl=\(secondsLeft.map(String.init) ?? "-")\tsource=\(source)"
        }
    }

    /// How fast answered lookups of one name are: what every request for a known name pays.
    public struct Timing: Sendable, CustomStringConvertible {
        public var lookups: Int
        public var seconds: Double
        public var lookupsPerSecond: Double { seconds > 0 ? Double(lookups) / seconds : 0 }

        public var description: String {
            "lookups=\(lookups) seconds=\(seconds) lookups_per_second=\(Int(lookupsPerSecond))"
        }
    }

    /// Resolves `name` once, then, with `repeat` above zero, looks it up that many more times through the
    /// same chain and cache the workers use, and times those lookups.
    public static func resolve(_ name: String, config: Config,
                               repeat repetitions: Int = 0) throws(StartupError) -> (Result<[Line], ResolveFailure>, Timing?) {
        // Only what went wrong belongs next to the answer; the daemon's info lines would bury it.
        Logger.threshold = .warning
        let service = try ResolverService(config: config, persistCache: false)
        service.start(warm: false)
        defer { service.stop() }
        let base = EventBase()
        let mailbox = try LoopMailbox(base: base)
        let chain = ResolverChain(settings: config.resolver, hosts: config.hosts, service: service, mailbox: mailbox)
        var outcome: Result<Resolution, ResolveFailure>?
        switch chain.resolve(name, completion: { result in
            outcome = result
            base.loopBreak()
        }) {
        case .done(let result): outcome = result
        case .pending: base.dispatch()
        }
        guard let outcome else {
            return (.failure(ResolveFailure(host: name, reason: .failed("the resolver stopped without an answer"))), nil)
        }
        var timing: Timing?
        if repetitions > 0, case .success = outcome {
            timing = time(repetitions) {
                if case .pending(let handle) = chain.resolve(name, completion: { _ in }) { handle.cancel() }
            }
        }
        return (outcome.map(lines), timing)
    }

    private static func time(_ repetitions: Int, _ lookup: () -> Void) -> Timing {
        let started = MonotonicClock.nowMicros()
        for _ in 0..<repetitions { lookup() }
        let micros = MonotonicClock.nowMicros() - started
        return Timing(lookups: repetitions, seconds: Double(micros) / 1_000_000)
    }

    static func lines(_ resolution: Resolution) -> [Line] {
        let source: String
        switch resolution.cache {
        case .miss: source = resolution.source.description
        case .hit: source = "cache (\(resolution.source))"
        case .stale: source = "stale (\(resolution.source))"
        }
        return resolution.addresses.map { address in
            Line(address: address, secondsLeft: resolution.secondsLeft[AddressFamily(of: address)], source: source)
        }
    }
}

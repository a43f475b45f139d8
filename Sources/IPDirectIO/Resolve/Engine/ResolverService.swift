import IPDirectCore

/// The resolver every worker shares. The cache sits behind a lock that workers take for a lookup, so a
/// cached name costs no thread hop; anything that needs a query goes to the resolver thread, which owns
/// the HTTPDNS connections, the single-flight table and the system-resolver fallback, so any number of
/// concurrent lookups of a name, on any worker, cause one query.
final class ResolverService: Sendable {
    let state: SharedResolverState
    private let loop: ServiceLoop<ResolverEngines>
    private let cacheStore: CacheFileStore?
    /// Called on the resolver thread with every positive answer a source gave.
    private let answerStored: @Sendable (String, [IPAddress]) -> Void

    /// `persistCache`: load `cache_file` at start AND write it back; `ipdirect resolve` only reads it.
    /// `trust`: the `[tls]` CAs the proxy loaded, shared with the HTTPDNS providers; nil loads them if needed.
    /// `guardsAgainstLoops`: a DNS listener runs, which the system source may be pointed at (`DNSLoopGuard`).
    /// `answerStored`: called on the resolver thread with every positive answer a source gave.
    init(config: Config, trust: TrustStore? = nil, persistCache: Bool = true, guardsAgainstLoops: Bool = false,
         answerStored: @escaping @Sendable (String, [IPAddress]) -> Void = { _, _ in }) throws(StartupError) {
        LibeventLog.installed
        let settings = config.resolver
        let state = SharedResolverState(ResolverState(cache: ResolverCache(settings: settings.cache)))
        self.state = state
        self.answerStored = answerStored
        let store = settings.cacheFile.map { CacheFileStore(path: $0, writable: persistCache) }
        cacheStore = store
        loop = try ServiceLoop(named: "resolver") { (base, mailbox) throws(StartupError) in
            let retired = RetiredEngines(mailbox: mailbox)
            let engine = try ResolverEngine(base: base, config: config, trust: trust, cacheStore: store,
                                            links: ResolverService.links(state, answerStored, retired))
            let engines = ResolverEngines(engine, retired: retired)
            if guardsAgainstLoops { engines.watchForLoops(base: base, settings: settings, state: state) }
            return engines
        }
        if let store {
            let restored = store.load(settings: settings.cache)
            state.withLock { state in
                state.cache.restore(restored)
                self.state.publishAnswerChanges(of: state.cache)
            }
        }
    }

    /// What an engine of this service is given: the shared state, where answers go, and whom it tells
    /// that its queries may have ended.
    private static func links(_ state: SharedResolverState, _ answerStored: @escaping @Sendable (String, [IPAddress]) -> Void,
                              _ retired: RetiredEngines) -> ResolverEngine.Links {
        ResolverEngine.Links(state: state, answerStored: answerStored) { [weak retired] engine in
            retired?.engineMayBeIdle(engine)
        }
    }

    var answerChanges: UInt64 { state.answerChanges }

    /// Starts the resolver thread; `warm` resolves the `preresolve` names and keeps them fresh.
    func start(warm: Bool = true) {
        loop.start { engines in
            engines.current.start(warm: warm)
            engines.loopWatch?.start()
        }
    }

    /// Stops the resolver thread, then writes the cache file one last time.
    func stop() {
        guard loop.stop(teardown: { engines in engines.shutdown() }) else { return }
        let (cache, sources, entries) = state.withLock { ($0.cache.counters, $0.sources, $0.cache.count) }
        Logger.info("event=resolver_counters entries=\(entries) cache=[\(cache)] queries=[\(sources)]")
    }

    /// Thread-safe: applies a reloaded configuration's `[resolver]`, `[access]` and `[tls]` on the resolver
    /// thread. New lookups go to an engine built from it; queries already running finish on the old one;
    /// the cache and its entries stay (resized to `max_entries`, TTL limits applied to new answers).
    /// `completion` runs on the resolver thread with nil, or the reason the new settings were refused (the
    /// old ones then stay). `trust` holds `config.tls`'s CAs as the proxy loaded them.
    func apply(_ config: Config, trust: TrustStore, completion: @escaping @Sendable (String?) -> Void) {
        loop.post { [self] engines in
            let replacement: ResolverEngine
            do {
                replacement = try ResolverEngine(base: loop.base, config: config, trust: trust, cacheStore: cacheStore,
                                                 links: ResolverService.links(state, answerStored, engines.retired))
            } catch {
                return completion("\(error)")
            }
            state.withLock { state in
                state.cache.resettle(config.resolver.cache)
                self.state.publishAnswerChanges(of: state.cache)
            }
            engines.replace(with: replacement)
            replacement.start(warm: true)
            engines.loopWatch?.apply(config.resolver)
            completion(nil)
        }
    }

    /// Called on a worker thread with a name `HostName.normalized` returned: a cached answer (with a
    /// background refresh started when it is due), or nil when the sources must be asked, with `query`.
    /// Split from `query` so that the common case, a cached name, makes no completion to call back.
    func cached(_ name: HashedHostName, host: String) -> Result<Resolution, ResolveFailure>? {
        let now = ResolverService.nowMillis()
        let key = ResolverCacheKey(hashedName: name, family: .v4)
        let cached = state.withLock { state in
            CachedName(v4: state.cache.lookup(key, now: now), v6: state.cache.lookup(key.inFamily(.v6), now: now), now: now)
        }
        switch cached {
        case .addresses(let resolution, let refresh):
            if refresh { loop.post { engines in engines.current.resolve(name.text, waiter: nil) } }
            return .success(resolution)
        case .negative(let source, let nameDoesNotExist):
            return .failure(ResolverService.negative(host, source: source, nameDoesNotExist: nameDoesNotExist))
        case .miss:
            return nil
        }
    }

    /// Called on a worker thread after `cached` found nothing: the query runs on the resolver thread and
    /// the answer is posted to `replyTo`, the worker's own mailbox.
    func query(_ host: String, replyTo: LoopMailbox,
               completion: @escaping (Result<Resolution, ResolveFailure>) -> Void) -> ResolveHandle {
        let name = HostName.normalized(host)
        let pending = PendingLookup(completion: completion)
        let waiter = ResolveWaiter(mailbox: replyTo, lookup: pending)
        loop.post { engines in engines.current.resolve(name, waiter: waiter) }
        return pending
    }

    /// Called on a worker thread when its DNS listener receives a loop probe: the probe in flight means the
    /// system source asks ipdirect itself, and is switched off (`ResolverEngine` reads the guard).
    func loopProbeArrived(_ host: String) {
        guard state.withLock({ $0.loopGuard.arrived(host) }) == .loopDetected else { return }
        Logger.warning("event=dns_loop probe=\(host) path=\(DNSLoopWatch.resolvConfPath) details=\"the system source asks ipdirect's own DNS listener; the system source and compare_system are off, HTTPDNS keeps answering. Fix: name another nameserver in resolv.conf, set [resolver] system_nameservers, or remove system from [resolver] order\"")
    }

    /// Called on a worker thread: relays a query about `name` to the providers that serve it, on the
    /// resolver thread (which owns their connections); the outcome is posted to `replyTo`. Nothing is cached.
    func relay(_ name: String, _ relayed: DNSRelayedQuery, replyTo: LoopMailbox,
               completion: @escaping (DNSMessageRelayOutcome) -> Void) -> ResolveHandle {
        let pending = PendingAnswer(completion: completion)
        loop.post { engines in
            engines.current.relay(HostName.normalized(name), relayed) { outcome in
                replyTo.post { pending.deliver(outcome) }
            }
        }
        return pending
    }

    /// Thread-safe: each of `names` that is in the cache is asked again in the background (the cached
    /// answers stay in use meanwhile); returns how many that is.
    func refresh(_ names: [String]) -> Int {
        let now = ResolverService.nowMillis()
        let cached = state.withLock { state in
            names.filter { name in AddressFamily.allCases.contains { state.cache.peek(name, family: $0, now: now) != nil } }
        }
        loop.post { engines in
            for name in cached { engines.current.resolve(name, waiter: nil) }
        }
        return cached.count
    }

    /// What a negative answer (RFC 2308), fresh or cached, tells the client.
    static func negative(_ host: String, source: ResolutionSource, nameDoesNotExist: Bool) -> ResolveFailure {
        ResolveFailure(host: host, reason: nameDoesNotExist ? .notFound : .noAddresses(source: source.description))
    }

    /// The clock of every cache instant: monotonic milliseconds.
    static func nowMillis() -> CacheInstant {
        MonotonicClock.nowMicros() / 1000
    }
}

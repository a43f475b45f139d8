import CEvent
import Glibc
import IPDirectCore
import Synchronization

/// What the workers and the resolver thread share.
struct ResolverState {
    var cache: ResolverCache
    var sources = SourceQueryCounters()
    /// Whether the system source asks ipdirect itself; the workers' DNS listeners report probes here.
    var loopGuard = DNSLoopGuard()
    /// Names whose system DNS answer shared no address with HTTPDNS's (`compare_system`), marked `hijack` in
    /// `/queries`; at most `SystemComparison.maximumReportedNames` of them.
    var hijackedNames = Set<String>()

    mutating func systemDisagreed(on name: String) {
        sources.systemDisagreements += 1
        if hijackedNames.count < SystemComparison.maximumReportedNames { hijackedNames.insert(name) }
    }
}

/// The resolver every worker shares. The cache sits behind a lock that workers take for a lookup, so a
/// cached name costs no thread hop; anything that needs a query goes to the resolver thread, which owns
/// the HTTPDNS connections, the single-flight table and the system-resolver fallback, so any number of
/// concurrent lookups of a name, on any worker, cause one query.
///
/// `@unchecked Sendable`: the engine and the resolver loop are touched only on the resolver thread
/// (through `mailbox`) once `start` has run; `state` is the only thing other threads touch, under its lock.
final class ResolverService: @unchecked Sendable {
    let state: Mutex<ResolverState>
    /// `ResolverCache.answerChanges`, copied under `state`'s lock by whoever changes the cache, so that a
    /// DNS listener can tell whether its answer templates still hold without taking that lock.
    private let publishedAnswerChanges = Atomic<UInt64>(0)
    private let base: EventBase
    private let mailbox: LoopMailbox
    /// Replaced by a reload; read and written on the resolver thread only (jobs name it when they run).
    private var engine: ResolverEngine
    /// Engines a reload replaced, kept until the queries they were running have ended.
    private var retired: [ResolverEngine] = []
    private let cacheStore: CacheFileStore?
    /// Probes for a resolv.conf that names ipdirect's own DNS listener; nil when no listener runs.
    private var loopWatch: DNSLoopWatch?
    /// Called on the resolver thread with every positive answer a source gave (set before `start`).
    nonisolated(unsafe) var answerStored: (@Sendable (String, [IPAddress]) -> Void)?
    private var thread: pthread_t?

    /// `persistCache`: load `cache_file` at start AND write it back; `ipdirect resolve` only reads it.
    /// `trust`: the `[tls]` CAs the proxy loaded, shared with the HTTPDNS providers; nil loads them if needed.
    /// `guardsAgainstLoops`: a DNS listener runs, which the system source may be pointed at (`DNSLoopGuard`).
    init(config: Config, trust: TrustStore? = nil, persistCache: Bool = true,
         guardsAgainstLoops: Bool = false) throws(StartupError) {
        LibeventLog.installed
        let settings = config.resolver
        state = Mutex(ResolverState(cache: ResolverCache(settings: settings.cache)))
        base = EventBase()
        mailbox = try LoopMailbox(base: base)
        let store = settings.cacheFile.map { CacheFileStore(path: $0, writable: persistCache) }
        cacheStore = store
        engine = try ResolverEngine(base: base, config: config, trust: trust, cacheStore: store)
        engine.service = self
        if guardsAgainstLoops {
            loopWatch = DNSLoopWatch(base: base, settings: settings, service: self) { [unowned self] in engine.system }
        }
        if let store {
            let restored = store.load(settings: settings.cache)
            state.withLock { state in
                state.cache.restore(restored)
                publishAnswerChanges(of: state.cache)
            }
        }
    }

    var answerChanges: UInt64 { publishedAnswerChanges.load(ordering: .acquiring) }

    /// Call with `state`'s lock held, after changing `cache`.
    func publishAnswerChanges(of cache: ResolverCache) {
        publishedAnswerChanges.store(cache.answerChanges, ordering: .releasing)
    }

    /// Starts the resolver thread; `warm` resolves the `preresolve` names and keeps them fresh.
    func start(warm: Bool = true) {
        thread = LoopThread.start { [self] in base.dispatch() }
        mailbox.post { [self] in
            engine.start(warm: warm)
            loopWatch?.start()
        }
    }

    /// Stops the resolver thread, then writes the cache file one last time.
    func stop() {
        guard let thread else { return }
        mailbox.post { [self] in
            loopWatch?.stop()
            engine.shutdown()
            for old in retired { old.shutdown(writingCache: false) }
            retired.removeAll()
            base.loopBreak()
        }
        pthread_join(thread, nil)
        self.thread = nil
        let (cache, sources, entries) = state.withLock { ($0.cache.counters, $0.sources, $0.cache.count) }
        Logger.info("event=resolver_counters entries=\(entries) cache=[\(cache)] queries=[\(sources)]")
    }

    /// Thread-safe: applies a reloaded configuration's `[resolver]`, `[access]` and `[tls]` on the resolver
    /// thread. New lookups go to an engine built from it; queries already running finish on the old one;
    /// the cache and its entries stay (resized to `max_entries`, TTL limits applied to new answers).
    /// `completion` runs on the resolver thread with nil, or the reason the new settings were refused (the
    /// old ones then stay). `trust` holds `config.tls`'s CAs as the proxy loaded them.
    func apply(_ config: Config, trust: TrustStore, completion: @escaping @Sendable (String?) -> Void) {
        mailbox.post { [self] in
            let replacement: ResolverEngine
            do {
                replacement = try ResolverEngine(base: base, config: config, trust: trust, cacheStore: cacheStore)
            } catch {
                return completion("\(error)")
            }
            replacement.service = self
            state.withLock { state in
                state.cache.resettle(config.resolver.cache)
                publishAnswerChanges(of: state.cache)
            }
            let old = engine
            engine = replacement
            old.retire()
            retired.append(old)
            engineMayBeIdle(old)
            replacement.start(warm: true)
            loopWatch?.apply(config.resolver)
            completion(nil)
        }
    }

    /// Called by a retired engine as its queries end: once none runs, it is closed and let go — from a
    /// job of its own, never from inside the callback that ended its last query (its transport or evdns
    /// base is still on the stack there).
    func engineMayBeIdle(_ old: ResolverEngine) {
        guard retired.contains(where: { $0 === old }) else { return }
        mailbox.post { [self] in
            guard !old.isBusy, let index = retired.firstIndex(where: { $0 === old }) else { return }
            retired.remove(at: index)
            old.shutdown(writingCache: false)
        }
    }

    /// Called on a worker thread: a cached answer comes back at once (with a background refresh started
    /// when it is due); otherwise the query runs on the resolver thread and the answer is posted to
    /// `replyTo`, the worker's own mailbox.
    func lookup(_ host: String, replyTo: LoopMailbox,
                completion: @escaping (Result<Resolution, ResolveFailure>) -> Void) -> ResolverChain.Lookup {
        let name = HostName.normalized(host)
        let now = ResolverService.nowMillis()
        let cached = state.withLock { state in
            CachedName(v4: state.cache.lookup(name, family: .v4, now: now),
                       v6: state.cache.lookup(name, family: .v6, now: now), now: now)
        }
        switch cached {
        case .addresses(let resolution, let refresh):
            if refresh { mailbox.post { [self] in engine.resolve(name, waiter: nil) } }
            return .done(.success(resolution))
        case .negative(let source, let nameDoesNotExist):
            return .done(.failure(ResolverService.negative(host, source: source, nameDoesNotExist: nameDoesNotExist)))
        case .miss:
            let pending = PendingLookup(completion: completion)
            let waiter = ResolveWaiter(mailbox: replyTo, lookup: pending)
            mailbox.post { [self] in engine.resolve(name, waiter: waiter) }
            return .pending(pending)
        }
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
        mailbox.post { [self] in
            engine.relay(HostName.normalized(name), relayed) { outcome in
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
        mailbox.post { [self] in
            for name in cached { engine.resolve(name, waiter: nil) }
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

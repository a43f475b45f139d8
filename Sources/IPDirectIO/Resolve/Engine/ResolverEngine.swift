import CEvent
import IPDirectCore

/// The resolver thread's half of `ResolverService`: runs the network sources of `[resolver] order`
/// for a name (HTTPDNS providers in turn, then the system resolver), one query per name however many
/// wait, puts answers into the shared cache and hands them to the waiters' loops.
final class ResolverEngine {
    /// What the network sources said about one name.
    private enum Outcome {
        case answered(NameAnswer, source: ResolutionSource)
        /// Every source failed; each reason names its source. `timedOut` when every one timed out.
        case failed(reasons: [String], timedOut: Bool)
    }

    /// One thing to ask, in order.
    private enum Step {
        /// The provider at this index of `providers`. `domainLimited`: the provider answers only its
        /// `domains`, so its negative answer falls through.
        case provider(Int, domainLimited: Bool)
        case system
    }

    /// What an engine shares with the service that runs it, given at init.
    struct Links {
        /// The cache and counters the workers read; answers go in there.
        let state: SharedResolverState
        /// Called on the resolver thread with every positive answer a source gave.
        let answerStored: (String, [IPAddress]) -> Void
        /// Called as a query ends, so that a retired engine is let go once none runs.
        let mayBeIdle: (ResolverEngine) -> Void
    }

    private let state: SharedResolverState
    private let answerStored: (String, [IPAddress]) -> Void
    private let mayBeIdle: (ResolverEngine) -> Void
    private let base: EventBase
    private let settings: ResolverSettings
    /// Index-aligned with `settings.httpdns` (empty when `order` has no httpdns).
    private let providers: [HTTPDNSSource]
    private let selection: HTTPDNSProviderSelection
    /// Also used by `DNSLoopWatch`, whose probes must take the path the system source's lookups take.
    let system: SystemResolver?
    private let allowPrivateUpstreams: Bool
    private let cacheStore: CacheFileStore?
    private var flights = SingleFlight<String, ResolveWaiter>()
    private let comparison: SystemComparison?
    private var keepWarm: KeepWarmSchedule
    /// Fires at `keepWarm.nextDue`; made with the first planned fetch.
    private var keepWarmTimer: Timer?
    private var demotions = ProviderDemotions()
    private var cacheWriteTimer: Timer?
    /// Set as the resolver thread stops: queries still running end without asking further sources.
    private var isStopping = false

    /// `trust`: the `[tls]` CAs when the proxy has loaded them already; nil loads them here, once, when an
    /// https provider needs them.
    init(base: EventBase, config: Config, trust: TrustStore?, cacheStore: CacheFileStore?,
         links: Links) throws(StartupError) {
        state = links.state
        answerStored = links.answerStored
        mayBeIdle = links.mayBeIdle
        self.base = base
        settings = config.resolver
        allowPrivateUpstreams = config.access.allowPrivateUpstreams
        self.cacheStore = cacheStore
        var loadedTrust = trust
        let sharedTrust = { () throws(StartupError) -> TrustStore in
            if let loadedTrust { return loadedTrust }
            let loaded = try TrustStore(config.tls)
            loadedTrust = loaded
            return loaded
        }
        let needsSystem = settings.order.contains(.system) || settings.compareSystem
        system = needsSystem ? try SystemResolver(base: base, settings: settings) : nil
        providers = settings.order.contains(.httpdns)
            ? try settings.httpdns.map { (provider) throws(StartupError) -> HTTPDNSSource in
                try HTTPDNSProvider(base: base, settings: provider, trust: sharedTrust) }
            : []
        selection = HTTPDNSProviderSelection(providers.isEmpty ? [] : settings.httpdns)
        comparison = settings.compareSystem ? system.map { SystemComparison(system: $0) } : nil
        keepWarm = KeepWarmSchedule(names: settings.preresolve)
    }

    /// Runs on the resolver thread once it is up.
    func start(warm: Bool) {
        for provider in providers {
            Logger.info("event=httpdns_provider name=\(provider.name)")
            // The shared state, not this engine: a reload may retire the engine while its connections live on.
            let name = provider.name
            (provider as? HTTPDNSProvider)?.dotConnectionOpened = { [state] in
                state.withLock { $0.sources.countDoTConnectionOpened(provider: name) }
            }
        }
        guard warm else { return }
        for name in settings.preresolve {
            resolve(name, waiter: nil)
        }
        if let cacheStore, cacheStore.writable {
            let timer = Timer(base: base)
            timer.action = { [unowned self, unowned timer] in
                writeCache()
                timer.schedule(afterMillis: settings.cacheWriteIntervalSeconds * 1000)
            }
            timer.schedule(afterMillis: settings.cacheWriteIntervalSeconds * 1000)
            cacheWriteTimer = timer
        }
    }

    /// Runs on the resolver thread as it stops: no more queries, the cache file written one last time
    /// (unless a newer engine owns it).
    func shutdown(writingCache: Bool = true) {
        isStopping = true
        retire()
        for provider in providers { provider.close() }
        if writingCache { writeCache() }
    }

    /// A reload replaced this engine: its timers stop, the queries it runs finish (see `isBusy`).
    func retire() {
        cacheWriteTimer?.cancel()
        keepWarmTimer?.cancel()
        keepWarm.removeAll()
    }

    /// Queries are running; a retired engine must live until they end.
    var isBusy: Bool { flights.runningCount > 0 }

    /// Resolves `name` for `waiter`, or in the background when there is none (a refresh, preresolve).
    /// A query already running for the name is joined, never repeated.
    func resolve(_ name: String, waiter: ResolveWaiter?) {
        if let waiter {
            // The worker found no answer, but a query that ended after it looked may have stored one.
            if let cached = cachedAnswer(name) { return waiter.answer(cached) }
            guard flights.join(name, waiter: waiter).role == .leader else { return }
        } else {
            guard flights.startWithoutWaiter(name) == .leader else { return }
        }
        query(name, steps: steps(for: name)[...], reasons: [], timeouts: 0) { [unowned self] outcome in
            finish(name, outcome)
        }
    }

    /// Relays a query about `name` to the providers that serve it and carry DNS messages (doh, dot), in the
    /// order a lookup of the name would ask them, until one answers; `.noProvider` when none serves the name.
    func relay(_ name: String, _ relayed: DNSRelayedQuery, completion: @escaping (DNSMessageRelayOutcome) -> Void) {
        let demoted = demotions.demoted(now: ResolverService.nowMillis())
        let candidates = selection.order(for: name, demoted: demoted).filter { providers[$0].carriesDNSMessages }
        guard !candidates.isEmpty else { return completion(.noProvider) }
        relay(relayed, via: candidates[...], reasons: [], completion: completion)
    }

    private func relay(_ relayed: DNSRelayedQuery, via candidates: ArraySlice<Int>, reasons: [String],
                       completion: @escaping (DNSMessageRelayOutcome) -> Void) {
        var candidates = candidates
        guard !isStopping, let index = candidates.popFirst() else {
            return completion(.failed(reasons.isEmpty ? "the resolver is stopping" : reasons.joined(separator: "; ")))
        }
        let provider = providers[index]
        provider.exchange(relayed) { [unowned self] result in
            switch result {
            case .success(let answer): completion(.answered(answer, provider: provider.name))
            case .failure(let failure):
                relay(relayed, via: candidates, reasons: reasons + ["\(provider.name): \(failure.reason)"], completion: completion)
            }
        }
    }

    /// A usable cached answer for `name` that needs no refresh, or a cached negative one.
    private func cachedAnswer(_ name: String) -> Result<Resolution, ResolveFailure>? {
        let now = ResolverService.nowMillis()
        let cached = state.withLock { state in
            CachedName(v4: state.cache.inspect(name, family: .v4, now: now),
                       v6: state.cache.inspect(name, family: .v6, now: now), now: now)
        }
        switch cached {
        case .addresses(let resolution, refresh: false): return .success(resolution)
        case .negative(let source, let nameDoesNotExist):
            return .failure(ResolverService.negative(name, source: source, nameDoesNotExist: nameDoesNotExist))
        case .addresses, .miss: return nil
        }
    }

    private func steps(for name: String) -> [Step] {
        let bypassed = settings.bypass.contains { $0.matches(name) }
        return settings.order.flatMap { source -> [Step] in
            switch source {
            case .hosts: return []
            case .httpdns:
                guard !bypassed else { return [] }
                let demoted = demotions.demoted(now: ResolverService.nowMillis())
                return selection.order(for: name, demoted: demoted).map { index in
                    .provider(index, domainLimited: selection.isDomainLimited(index))
                }
            case .system: return system == nil ? [] : [.system]
            }
        }
    }

    private func query(_ name: String, steps: ArraySlice<Step>, reasons: [String], timeouts: Int,
                       completion: @escaping (Outcome) -> Void) {
        var steps = steps
        if isStopping {
            return completion(.failed(reasons: reasons + ["the resolver is stopping"], timedOut: false))
        }
        guard let step = steps.popFirst() else {
            let why = reasons.isEmpty
                ? ["no source to ask (resolver.order = \(settings.order.map(\.rawValue)))"] : reasons
            completion(.failed(reasons: why, timedOut: !reasons.isEmpty && timeouts == reasons.count))
            return
        }
        switch step {
        case .provider(let index, let domainLimited):
            let provider = providers[index]
            provider.resolve(name) { [unowned self] result in
                if isStopping {
                    return completion(.failed(reasons: reasons + ["the resolver is stopping"], timedOut: false))
                }
                if case .failure(let failure) = result {
                    let length = demotions.failed(index, now: ResolverService.nowMillis())
                    Logger.warning("event=httpdns_provider_demoted provider=\(provider.name) for_ms=\(length) reason=\"\(failure.reason)\"")
                } else if demotions.answered(index) {
                    Logger.info("event=httpdns_provider_restored provider=\(provider.name)")
                }
                switch checked(result, from: provider, name: name) {
                case .success(let answer) where domainLimited && answer.isNegative:
                    // Alibaba's and Tencent's HTTPDNS answer empty for a name the account does not hold,
                    // so a domain-limited provider's "no such name" says little about the name: the
                    // next provider is asked, and nothing is cached from this answer.
                    let why = "no address (\(answer.nameDoesNotExist ? "NXDOMAIN" : "empty answer")) from a provider limited to its domains"
                    Logger.info("event=httpdns_fall_through provider=\(provider.name) name=\(name) reason=\"\(why)\"")
                    // When no later source answers at all, this negative answer is the best there is: it is
                    // cached (negative_ttl), so a name that does not exist is not asked again per request.
                    query(name, steps: steps, reasons: reasons + ["\(provider.name): \(why)"], timeouts: timeouts) { outcome in
                        if case .failed = outcome {
                            return completion(.answered(answer, source: .httpdns(provider.name)))
                        }
                        completion(outcome)
                    }
                case .success(let answer):
                    completion(.answered(answer, source: .httpdns(provider.name)))
                case .failure(let failure):
                    Logger.warning("event=httpdns_failed provider=\(provider.name) name=\(name) reason=\"\(failure.reason)\"")
                    query(name, steps: steps, reasons: reasons + ["\(provider.name): \(failure.reason)"],
                          timeouts: timeouts + (failure.timedOut ? 1 : 0), completion: completion)
                }
            }
        case .system where systemLoops:
            query(name, steps: steps, reasons: reasons + ["system: \(Self.systemLoopReason)"], timeouts: timeouts,
                  completion: completion)
        case .system:
            _ = system!.lookup(name) { [unowned self] result in
                switch result {
                case .success(let addresses):
                    count(.answered, source: "system")
                    let answered = addresses.map { AnsweredAddress(address: $0, ttl: 0) }
                    completion(.answered(NameAnswer(splitting: .addresses(answered)), source: .system))
                case .failure(let failure) where failure.reason == .notFound:
                    count(.negative, source: "system")
                    completion(.answered(NameAnswer(v4: .nameDoesNotExist, v6: .nameDoesNotExist), source: .system))
                case .failure(let failure):
                    let timedOut = failure.reason == .timeout
                    count(timedOut ? .timeout : .failed, source: "system")
                    let why = "system: \(failure.reasonText)"
                    query(name, steps: steps, reasons: reasons + [why], timeouts: timeouts + (timedOut ? 1 : 0),
                          completion: completion)
                }
            }
        }
    }

    /// Counts a provider's outcome and applies the rebinding guard: unless private upstreams are allowed,
    /// an HTTPDNS answer's non-public addresses never enter the cache, and an answer of nothing else is
    /// a failure of that provider.
    private func checked(_ result: Result<NameAnswer, HTTPDNSQueryFailure>, from provider: HTTPDNSSource,
                         name: String) -> Result<NameAnswer, HTTPDNSQueryFailure> {
        guard case .success(let answer) = result else {
            if case .failure(let failure) = result { count(failure.timedOut ? .timeout : .failed, source: provider.name) }
            return result
        }
        guard !allowPrivateUpstreams else {
            count(answer.isNegative ? .negative : .answered, source: provider.name)
            return .success(answer)
        }
        let (kept, refused) = answer.keepingPublicAddresses()
        if !refused.isEmpty {
            let list = refused.map(\.description).joined(separator: ",")
            Logger.warning("event=httpdns_answer_refused provider=\(provider.name) name=\(name) addresses=\(list) reason=\"non-public address from HTTPDNS (access.allow_private_upstreams = false)\"")
        }
        if kept.isNegative && !answer.isNegative {
            count(.failed, source: provider.name)
            return .failure(HTTPDNSQueryFailure(
                reason: "answered only non-public addresses, refused as DNS rebinding (access.allow_private_upstreams = false)",
                timedOut: false))
        }
        count(kept.isNegative ? .negative : .answered, source: provider.name)
        return .success(kept)
    }

    private func finish(_ name: String, _ outcome: Outcome) {
        let now = ResolverService.nowMillis()
        let waiters = flights.finish(name)
        let result: Result<Resolution, ResolveFailure>
        switch outcome {
        case .answered(let answer, let source):
            result = store(answer, source: source, name: name, now: now)
            if case .httpdns = source, let comparison, !answer.isNegative, !systemLoops {
                // The shared state, not this engine: a reload may have let the engine go before the system answers.
                comparison.compare(name, httpdns: answer.addresses, provider: source.description) { [state] in
                    state.withLock { $0.systemDisagreed(on: name) }
                }
            }
        case .failed(let reasons, let timedOut):
            let failure = ResolveFailure(
                host: name, reason: timedOut ? .timeout : .failed("every source failed: \(reasons.joined(separator: "; "))"))
            guard !waiters.isEmpty else {
                // A background refresh: whatever is cached stays, to be served (stale, once expired) and
                // refreshed again later; nobody was answered, so nothing is counted as served.
                guard !isStopping else { return }
                Logger.warning("event=refresh_failed name=\(name) reason=\"\(failure.reasonText)\"")
                if let age = state.withLock({ $0.cache.staleAge(name, now: now) }) {
                    Logger.warning("event=serve_stale name=\(name) age_ms=\(age) reason=\"every source failed\"")
                }
                return
            }
            result = staleFallback(name, now: now, servedTo: waiters.count) ?? .failure(failure)
            if case .failure(let failure) = result, !isStopping {
                Logger.warning("event=resolve_failed name=\(name) reason=\"\(failure)\"")
            }
        }
        for waiter in waiters {
            waiter.answer(result)
        }
        mayBeIdle(self)
    }

    private func store(_ answer: NameAnswer, source: ResolutionSource, name: String,
                       now: CacheInstant) -> Result<Resolution, ResolveFailure> {
        let label = source.cacheLabel
        let secondsLeft = state.withLock { state in
            var left = SecondsLeftByFamily()
            for family in AddressFamily.allCases {
                switch answer[family] {
                case .addresses(let answered):
                    let ttl = answered.map(\.ttl).min() ?? 0
                    state.cache.insert(answered.map(\.address), ttl: ttl, for: name, family: family, source: label, now: now)
                case .nameDoesNotExist, .noAddresses:
                    state.cache.insertNegative(for: name, family: family, source: label, now: now,
                                               nameDoesNotExist: answer[family] == .nameDoesNotExist)
                }
                left[family] = state.cache.peek(name, family: family, now: now)?.secondsLeft(at: now)
            }
            self.state.publishAnswerChanges(of: state.cache)
            return left
        }
        if keepWarm.answered(name, secondsLeft: secondsLeft, now: now) != nil {
            scheduleKeepWarmTimer(now: now)
        }
        if answer.isNegative {
            return .failure(ResolverService.negative(name, source: source, nameDoesNotExist: answer.nameDoesNotExist))
        }
        answerStored(name, answer.addresses)
        return .success(Resolution(addresses: answer.addresses, source: source, cache: .miss, secondsLeft: secondsLeft))
    }

    /// RFC 8767 §4: when every source fails, an answer past its TTL but inside the serve-stale window
    /// is better than none.
    private func staleFallback(_ name: String, now: CacheInstant, servedTo requests: Int) -> Result<Resolution, ResolveFailure>? {
        let stale = state.withLock { $0.cache.staleFallback(name, servedTo: requests, now: now) }
        guard let stale else { return nil }
        Logger.warning("event=serve_stale name=\(name) age_ms=\(stale.cache.ageMillis ?? 0) reason=\"every source failed\"")
        return .success(stale)
    }

    /// `preresolve` names are fetched again at the cache's refresh point (see `KeepWarmSchedule`), so a
    /// request never finds them expired.
    private func fetchDueNames() {
        let now = ResolverService.nowMillis()
        for name in keepWarm.due(at: now) {
            resolve(name, waiter: nil)
        }
        scheduleKeepWarmTimer(now: now)
    }

    /// Sets the keep-warm timer for the earliest planned fetch.
    private func scheduleKeepWarmTimer(now: CacheInstant) {
        guard let next = keepWarm.nextDue else { return }
        let timer = keepWarmTimer ?? Timer(base: base)
        timer.action = { [unowned self] in fetchDueNames() }
        keepWarmTimer = timer
        timer.schedule(afterMillis: Int(max(0, next - now)))
    }

    static let systemLoopReason = "off: it asks ipdirect's own DNS listener (event=dns_loop)"

    /// The loop guard found the system source asking ipdirect itself: it would only ask this engine again.
    private var systemLoops: Bool {
        system != nil && state.withLock { $0.loopGuard.loopDetected }
    }

    private func count(_ outcome: SourceQueryOutcome, source: String) {
        state.withLock { $0.sources.count(outcome, source: source) }
    }

    private func writeCache() {
        guard let cacheStore, cacheStore.writable else { return }
        let now = ResolverService.nowMillis()
        let bytes = state.withLock { $0.cache.serialized(now: now, unixTimeMillis: MonotonicClock.wallMillis()) }
        cacheStore.write(bytes)
    }
}

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

/// `ResolverState` behind its lock, shared by the workers, the admin listener and the resolver thread's
/// engines, with `ResolverCache.answerChanges` published beside it: copied under the lock by whoever changes
/// the cache, so that a DNS listener can tell whether its answer templates still hold without taking the lock.
final class SharedResolverState: Sendable {
    private let locked: Mutex<ResolverState>
    private let publishedAnswerChanges = Atomic<UInt64>(0)

    init(_ state: ResolverState) {
        locked = Mutex(state)
    }

    func withLock<Result>(_ body: (inout ResolverState) throws -> Result) rethrows -> Result {
        try locked.withLock { state in try body(&state) }
    }

    var answerChanges: UInt64 { publishedAnswerChanges.load(ordering: .acquiring) }

    /// Call with the lock held, after changing `cache`.
    func publishAnswerChanges(of cache: ResolverCache) {
        publishedAnswerChanges.store(cache.answerChanges, ordering: .releasing)
    }
}

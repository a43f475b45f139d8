import IPDirectCore

/// What the resolver thread owns: the engine new lookups go to, those a reload replaced, and the loop
/// watch. Touched on the resolver thread only.
final class ResolverEngines {
    /// Replaced by a reload; jobs name it when they run, so they reach the engine current then.
    private(set) var current: ResolverEngine
    let retired: RetiredEngines
    /// Probes for a resolv.conf that names ipdirect's own DNS listener; nil when no listener runs.
    private(set) var loopWatch: DNSLoopWatch?

    init(_ current: ResolverEngine, retired: RetiredEngines) {
        self.current = current
        self.retired = retired
    }

    /// `loopWatch` probes through the system resolver of whichever engine is current.
    func watchForLoops(base: EventBase, settings: ResolverSettings, state: SharedResolverState) {
        loopWatch = DNSLoopWatch(base: base, settings: settings, state: state) { [unowned self] in current.system }
    }

    /// New lookups go to `replacement`; the queries the old engine runs finish there.
    func replace(with replacement: ResolverEngine) {
        let old = current
        current = replacement
        retired.add(old)
    }

    /// As the resolver thread stops: the current engine writes the cache file one last time, the retired
    /// ones do not.
    func shutdown() {
        loopWatch?.stop()
        current.shutdown()
        retired.shutdownAll()
    }
}

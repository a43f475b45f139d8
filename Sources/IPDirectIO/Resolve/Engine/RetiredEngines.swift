/// The engines a reload replaced, kept until the queries they were running have ended. Touched on the
/// resolver thread only.
final class RetiredEngines {
    private var engines: [ResolverEngine] = []
    private let mailbox: LoopMailbox

    init(mailbox: LoopMailbox) {
        self.mailbox = mailbox
    }

    /// `old` no longer takes lookups: its timers stop, and it is let go once its queries have ended.
    func add(_ old: ResolverEngine) {
        old.retire()
        engines.append(old)
        engineMayBeIdle(old)
    }

    /// Called by a retired engine as its queries end: once none runs, it is closed and let go — from a
    /// job of its own, never from inside the callback that ended its last query (its transport or evdns
    /// base is still on the stack there).
    func engineMayBeIdle(_ old: ResolverEngine) {
        guard engines.contains(where: { $0 === old }) else { return }
        mailbox.post { [self] in
            guard !old.isBusy, let index = engines.firstIndex(where: { $0 === old }) else { return }
            engines.remove(at: index)
            old.shutdown(writingCache: false)
        }
    }

    /// As the resolver thread stops: queries still running end, without writing the cache file.
    func shutdownAll() {
        for old in engines { old.shutdown(writingCache: false) }
        engines.removeAll()
    }
}

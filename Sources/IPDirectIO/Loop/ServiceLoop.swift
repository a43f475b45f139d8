import Glibc
import Synchronization

/// An event loop on a thread of its own, for a background service (the resolver, the crypt checker, the
/// address prober, the admin listener): the event base, the mailbox through which other threads hand it
/// work, the thread, and `Owned`, what the service keeps on that loop (its engines, probes, workspace).
///
/// `@unchecked Sendable`, once for every such service: the event base and `owned` are touched only on the
/// loop thread — by `start`'s setup, by posted work and by `stop`'s teardown, which all run there (or, before
/// `start`, by the one thread that made the loop) — so a service that keeps its loop-side state in `Owned`
/// can be shared with the workers without vouching for that state itself.
final class ServiceLoop<Owned>: @unchecked Sendable {
    /// Where answers for this loop are posted (a `replyTo`); work that needs `Owned` goes through `post`.
    let mailbox: LoopMailbox
    /// For what the service builds on the loop (listeners, timers): on the loop thread, or before `start`.
    let base: EventBase
    private let owned: Owned
    /// Set by `start`, taken by `stop`; held while `stop` waits, so a second `stop` returns only once the
    /// thread has ended too.
    private let thread = Mutex<pthread_t?>(nil)
    /// The running loop thread's `pthread_self()`, 0 before it runs.
    private let loopThread = Atomic<UInt>(0)

    /// The loop thread's name.
    private let name: String

    /// `make` builds `Owned` on the new event base; it runs on the calling thread, before the loop runs.
    init(named name: String, _ make: (EventBase, LoopMailbox) throws(StartupError) -> Owned) throws(StartupError) {
        self.name = name
        base = EventBase()
        mailbox = try LoopMailbox(base: base)
        owned = try make(base, mailbox)
    }

    /// Starts the thread: `setup` runs there first, before any work posted earlier, then the loop runs until
    /// `stop`. A second `start` does nothing.
    func start(setup: @escaping (Owned) -> Void = { _ in }) {
        thread.withLock { thread in
            guard thread == nil else { return }
            thread = LoopThread.start(named: name) { [self] in
                loopThread.store(pthread_self(), ordering: .releasing)
                setup(owned)
                base.dispatch()
            }
        }
    }

    /// Thread-safe: `work` runs on the loop thread, after the work posted before it.
    func post(_ work: @escaping (Owned) -> Void) {
        mailbox.post { [owned] in work(owned) }
    }

    /// Whether the caller runs on the loop thread.
    var isOnLoopThread: Bool {
        loopThread.load(ordering: .acquiring) == pthread_self()
    }

    /// Runs `teardown` on the loop thread after the work already posted, then ends the loop and waits for
    /// the thread. Returns whether it stopped a running loop: false before `start` and after an earlier `stop`,
    /// when `teardown` does not run.
    @discardableResult
    func stop(teardown: @escaping (Owned) -> Void = { _ in }) -> Bool {
        thread.withLock { thread in
            guard let running = thread else { return false }
            mailbox.post { [self] in
                teardown(owned)
                base.loopExit()
            }
            pthread_join(running, nil)
            loopThread.store(0, ordering: .releasing)
            thread = nil
            return true
        }
    }
}

import Glibc
import IPDirectCore

/// Sends `DNSLoopGuard`'s probes through the system source, on the resolver thread: one at start, one after a
/// reload, and one whenever /etc/resolv.conf changes. Only the system source reading resolv.conf can loop:
/// `system_nameservers` naming the listener is refused by the config check.
///
/// resolv.conf is checked with a `stat` every `checkIntervalMillis`, not watched with inotify: network managers
/// replace the file, rename it over itself or mount over it, and a stat sees all of these for almost nothing.
final class DNSLoopWatch {
    static let resolvConfPath = SystemResolver.resolvConfPath
    static let checkIntervalMillis = 5_000

    /// What a change of resolv.conf changes: a new file (inode), a rewrite (time, size), a mount over it (device).
    private struct Fingerprint: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var seconds: Int
        var nanoseconds: Int
    }

    private let state: SharedResolverState
    private let timer: Timer
    private var settings: ResolverSettings
    /// The current engine's system resolver, through which probes go as the source's lookups do.
    private let system: () -> SystemResolver?
    private var fingerprint: Fingerprint?

    init(base: EventBase, settings: ResolverSettings, state: SharedResolverState, system: @escaping () -> SystemResolver?) {
        self.state = state
        self.settings = settings
        self.system = system
        timer = Timer(base: base)
        timer.action = { [unowned self] in check() }
    }

    /// Whether the system source reads resolv.conf at all.
    static func applies(_ settings: ResolverSettings) -> Bool {
        (settings.order.contains(.system) || settings.compareSystem) && settings.systemNameservers.isEmpty
    }

    func start() {
        fingerprint = Self.currentFingerprint()
        probe()
        timer.schedule(afterMillis: Self.checkIntervalMillis)
    }

    func stop() {
        timer.cancel()
    }

    /// A reload built a new system resolver, from resolv.conf as it is now.
    func apply(_ settings: ResolverSettings) {
        self.settings = settings
        fingerprint = Self.currentFingerprint()
        probe()
    }

    private func check() {
        timer.schedule(afterMillis: Self.checkIntervalMillis)
        guard Self.applies(settings) else { return }
        let now = Self.currentFingerprint()
        guard now != fingerprint else { return }
        fingerprint = now
        Logger.info("event=resolv_conf_changed path=\(Self.resolvConfPath)")
        system()?.rereadResolvConf()
        probe()
    }

    private func probe() {
        guard Self.applies(settings), let system = system() else { return }
        let nonce = UInt64.random(in: .min ... .max)
        let started = ResolverService.nowMillis()
        guard let name = state.withLock({ $0.loopGuard.begin(nonce: nonce, now: started) }) else { return }
        Logger.debug("event=dns_loop_probe name=\(name)")
        _ = system.lookup(name) { [state] _ in
            guard state.withLock({ $0.loopGuard.finished(name) }) == .loopCleared else { return }
            Logger.info("event=dns_loop_cleared path=\(Self.resolvConfPath) details=\"a probe through the system source no longer reaches ipdirect's own DNS listener; the system source is used again\"")
        }
    }

    private static func currentFingerprint() -> Fingerprint? {
        var info = stat()
        guard stat(resolvConfPath, &info) == 0 else { return nil }
        return Fingerprint(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                           seconds: info.st_mtim.tv_sec, nanoseconds: info.st_mtim.tv_nsec)
    }
}

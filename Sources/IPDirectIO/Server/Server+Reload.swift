import IPDirectCore
import Synchronization

/// SIGHUP: read the file again and, when it is valid, hand it to every worker loop. Listeners stay open
/// throughout, so no client is refused; requests and tunnels in flight are untouched; the resolver and its
/// cache carry on.
extension Server {
    /// How long the loops get to take the new configuration before READY=1 is sent regardless.
    static let reloadApplyWaitMillis = 2_000

    /// Settings a running daemon cannot change: each names its key and how to read it from a Config.
    /// A reload keeps their running values and says a restart is needed.
    static var restartOnlySettings: [(key: String, differs: (Config, Config) -> Bool, keep: (inout Config, Config) -> Void)] {[
        ("proxy.listen", { $0.proxy.listen != $1.proxy.listen }, { $0.proxy.listen = $1.proxy.listen }),
        ("proxy.workers", { $0.proxy.workers != $1.proxy.workers }, { $0.proxy.workers = $1.proxy.workers }),
        ("proxy.max_connections", { $0.proxy.maxConnections != $1.proxy.maxConnections },
         { $0.proxy.maxConnections = $1.proxy.maxConnections }),
        ("proxy.access_log", { $0.proxy.accessLog != $1.proxy.accessLog }, { $0.proxy.accessLog = $1.proxy.accessLog }),
        ("proxy.log_level", { $0.proxy.logLevel != $1.proxy.logLevel }, { $0.proxy.logLevel = $1.proxy.logLevel }),
        ("proxy.upstream_idle_timeout", { $0.proxy.upstreamIdleTimeoutMs != $1.proxy.upstreamIdleTimeoutMs },
         { $0.proxy.upstreamIdleTimeoutMs = $1.proxy.upstreamIdleTimeoutMs }),
        ("dns.listen", { $0.dns.listen != $1.dns.listen }, { $0.dns.listen = $1.dns.listen }),
        ("transparent.listen", { $0.transparent.listen != $1.transparent.listen },
         { $0.transparent.listen = $1.transparent.listen }),
        ("proxy.upstream_max_idle_per_host", { $0.proxy.upstreamMaxIdlePerHost != $1.proxy.upstreamMaxIdlePerHost },
         { $0.proxy.upstreamMaxIdlePerHost = $1.proxy.upstreamMaxIdlePerHost }),
    ]}

    var readyStatus: String {
        "serving on " + listenAddresses.map(\.description).joined(separator: ",")
    }

    func reload(signals: ServiceSignals, heartbeat: inout WorkerHeartbeat?) {
        guard let configPath else {
            Logger.warning("event=reload_ignored reason=\"running on the built-in configuration: no file to read again\"")
            return
        }
        notifier?.send(.reloading(monotonicMicros: MonotonicClock.nowMicros()))
        defer { notifier?.send(.ready(status: readyStatus)) }
        var next: Config
        switch ConfigFile.load(path: configPath) {
        case .failure(let error):
            for diagnostic in error.diagnostics {
                Logger.error("event=reload_rejected file=\(configPath) line=\(diagnostic.line) reason=\"\(diagnostic.message)\"")
            }
            Logger.error("event=reload_rejected file=\(configPath) problems=\(error.diagnostics.count) note=\"the running configuration stays in force\"")
            return
        case .success(let loaded):
            next = loaded
        }
        for setting in Server.restartOnlySettings where setting.differs(next, config) {
            Logger.warning("event=reload_needs_restart key=\(setting.key) note=\"changed in the file; the running value stays until a restart\"")
            setting.keep(&next, config)
        }
        reloadUsers(&next)
        reloadTLS(&next)
        if next.resolver != config.resolver || next.access != config.access || next.tls != config.tls {
            // The resolver first: when it refuses the new [resolver], everyone keeps the running one, so the
            // workers' chains and the resolver never disagree, and a later SIGHUP retries it.
            let resolved = Countdown(1)
            let refusal = Mutex<String?>(nil)
            resolver.apply(next, trust: tls.trust) { reason in
                refusal.withLock { $0 = reason }
                resolved.arrive()
            }
            let answered = wait(for: resolved, millis: Server.reloadApplyWaitMillis, signals: signals, heartbeat: &heartbeat)
            if let reason = refusal.withLock({ $0 }) ?? (answered ? nil : "the resolver thread did not answer in time") {
                Logger.error("event=reload_resolver_refused reason=\"\(reason)\" note=\"the running [resolver] settings stay in force\"")
                next.resolver = config.resolver
            }
        }
        admin.apply(next)
        let applied = Countdown(workers.count)
        for worker in workers {
            worker.mailbox.post { [next, tls] in
                worker.apply(next, tls: tls)
                applied.arrive()
            }
        }
        let complete = wait(for: applied, millis: Server.reloadApplyWaitMillis, signals: signals, heartbeat: &heartbeat)
        config = next
        Server.warnIfOpen(listen: listenAddresses, access: next.access)
        Logger.info("event=reloaded file=\(configPath) workers_applied=\(workers.count - applied.left) complete=\(complete)")
    }

    /// Builds the one TLS context of a changed `[tls]` for every worker; connections already open keep
    /// the old SSL_CTX through their SSL. When the new settings cannot be loaded the old ones stay in force,
    /// rather than none.
    private func reloadTLS(_ next: inout Config) {
        guard next.tls != config.tls else { return }
        do {
            tls = try TLSClientContext(next.tls, trust: TrustStore(next.tls))
        } catch {
            Logger.error("event=reload_tls_failed reason=\"\(error)\" note=\"previous [tls] kept\"")
            next.tls = config.tls
        }
    }
}

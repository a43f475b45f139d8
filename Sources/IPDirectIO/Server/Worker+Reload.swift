import IPDirectCore

/// A reload, run on the worker's own loop: new sessions take the new configuration, sessions already
/// open keep the settings they took when they were accepted, and the listeners are not touched.
extension Worker {
    func apply(_ newConfig: Config) {
        var tls = connectionSettings.tls
        if newConfig.tls != config.tls {
            do {
                tls = try TLSClientContext(caFile: newConfig.tls.caFile, caPath: newConfig.tls.caPath,
                                           pins: newConfig.tls.pins, insecureHosts: newConfig.tls.insecureHosts)
            } catch {
                // The old trust settings stay in force rather than none.
                Logger.error("worker=\(index) event=reload_tls_failed reason=\"\(error)\" note=\"previous [tls] kept\"")
                var kept = newConfig
                kept.tls = config.tls
                return apply(kept)
            }
        }
        config = newConfig
        pipes.limit = newConfig.proxy.pipesPerWorker(workerCount: workerCount)
        if index == 0 {
            health.apply(newConfig.upstream.healthSettings)
            prober.apply(newConfig)
        }
        connectionSettings = ConnectionSettings(
            config: newConfig, tls: tls,
            resolver: ResolverChain(settings: newConfig.resolver, hosts: newConfig.hosts, service: resolverService,
                                    mailbox: mailbox),
            credentials: Worker.credentials(newConfig, service: credentialService, mailbox: mailbox))
    }
}

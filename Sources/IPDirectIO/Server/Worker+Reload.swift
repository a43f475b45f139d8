import IPDirectCore

/// A reload, run on the worker's own loop: new sessions take the new configuration, sessions already
/// open keep the settings they took when they were accepted, and the listeners are not touched.
extension Worker {
    /// `tls` is the Server's context for `newConfig.tls`, the same object for every worker.
    func apply(_ newConfig: Config, tls: TLSClientContext) {
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

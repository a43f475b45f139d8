import IPDirectCore

/// A reload, run on the worker's own loop: new sessions take the new configuration, sessions already
/// open keep the settings they took when they were accepted, and the listeners are not touched.
extension Worker {
    /// `tls` is the Server's context for `newConfig.tls`, the same object for every worker.
    func apply(_ newConfig: Config, tls: TLSClientContext) {
        config = newConfig
        settingsGeneration &+= 1
        pipes.limit = newConfig.proxy.pipesPerWorker(workerCount: workerCount)
        if index == 0 {
            health.apply(newConfig.upstream.healthSettings)
            prober.apply(newConfig)
        }
        connectionSettings = Worker.connectionSettings(newConfig, ownEndpoints, tls: tls, resolverService: resolverService,
                                                       credentialService: credentialService, mailbox: mailbox)
    }

    /// The machine's addresses changed: a wildcard listener answers on the new ones, so connections
    /// accepted from now on refuse those (open ones keep the set they started with, as for a reload).
    func apply(interfaceAddresses: Set<IPAddress>) {
        ownEndpoints.interfaceAddresses = interfaceAddresses
        settingsGeneration &+= 1
        connectionSettings = Worker.connectionSettings(config, ownEndpoints, tls: connectionSettings.tls,
                                                       resolverService: resolverService,
                                                       credentialService: credentialService, mailbox: mailbox)
    }
}

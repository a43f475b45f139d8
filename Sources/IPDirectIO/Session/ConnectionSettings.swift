import IPDirectCore

/// Everything a client connection takes from the configuration, fixed when it is accepted: a SIGHUP
/// changes what later connections get, never half of what an open one uses (old proxy settings with a
/// new policy, say). The worker builds one per configuration; each connection keeps a reference.
final class ConnectionSettings {
    let proxy: ProxySettings
    let upstream: UpstreamSettings
    let pac: PACSettings
    let headLimits: HTTPHeadLimits
    let policy: UpstreamPolicy
    /// Trust store, pins and resumable sessions for the TLS this connection originates.
    let tls: TLSClientContext
    let resolver: ResolverChain

    init(config: Config, tls: TLSClientContext, resolver: ResolverChain) {
        proxy = config.proxy
        upstream = config.upstream
        pac = config.pac
        headLimits = HTTPHeadLimits(maxHeadBytes: config.proxy.maxHeaderBytes)
        policy = UpstreamPolicy(allowPrivateUpstreams: config.access.allowPrivateUpstreams,
                                connectPorts: config.access.connectPorts)
        self.tls = tls
        self.resolver = resolver
    }
}

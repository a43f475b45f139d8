import IPDirectCore

/// Everything a client connection takes from the configuration, fixed when it is accepted: a SIGHUP
/// changes what later connections get, never half of what an open one uses (old proxy settings with a
/// new policy, say). The worker builds one per configuration; each connection keeps a reference.
final class ConnectionSettings {
    /// What the session machine decides by: timeouts, limits, policy, rewriting.
    let rules: SessionRules
    /// Trust store, pins and resumable sessions for the TLS this connection originates.
    let tls: TLSClientContext
    let resolver: ResolverChain
    /// Logins against `auth_file`; nil when none is set and clients need no login.
    let credentials: CredentialVerifier?
    /// Client addresses served (`[access] clients`).
    let clients: ClientAccessList

    init(config: Config, ownEndpoints: OwnEndpoints, tls: TLSClientContext, resolver: ResolverChain,
         credentials: CredentialVerifier?) {
        rules = SessionRules(config: config, ownEndpoints: ownEndpoints)
        self.tls = tls
        self.resolver = resolver
        self.credentials = credentials
        clients = config.access.clients
    }
}

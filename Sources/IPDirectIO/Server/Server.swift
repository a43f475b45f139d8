import CEvent
import Glibc
import IPDirectCore

/// The daemon: binds the listeners (or takes those systemd hands it), runs one worker per configured
/// loop, reports its state to systemd, and drains on SIGINT/SIGTERM.
public final class Server {
    /// The configuration in force; replaced by a reload (main thread only).
    var config: Config
    /// The file SIGHUP reads again; nil when running on the built-in configuration.
    let configPath: String?
    /// SIGTERM/SIGINT taken while the main thread waited for the loops (during a reload or a drain).
    var stopSignalsReceived = 0
    /// SIGHUPs taken while the main thread waited for the loops; each is answered by one more reload.
    var reloadsPending = 0
    /// Each worker's listening sockets, one per address in `[proxy] listen` order (WorkerListeningSockets).
    let workerSockets: [[ListeningSocket]]
    /// Each worker's DNS listener sockets (`[dns] listen`, or handed ones named `dns`); empty when it is off.
    let dnsSockets: [DNSListenerSockets]
    let workers: [Worker]
    /// The TLS of the connections ipdirect originates, one for every worker (the CA store parsed once, one
    /// session cache so a session learned on one loop resumes on another); replaced whole by a reload that
    /// changes `[tls]` (main thread only).
    var tls: TLSClientContext
    let resolver: ResolverService
    /// Logins against `auth_file` and the crypt thread that checks them.
    let credentials: CredentialService
    /// Background probes of upstream addresses and the network-change watch, on their own thread.
    let prober: AddressProber
    /// The transparent listener's sockets, one list per worker (the listening sockets live as long as the server).
    let transparentSockets: [[ListeningSocket]]

    /// The transparent listener's addresses, with the port the kernel chose where the file said 0.
    var transparentAddresses: [SocketAddress] { transparentSockets[0].map(\.boundAddress) }
    /// The admin listener (`[admin]`), on its own thread; it keeps the configuration it started with.
    let admin: AdminServer
    /// systemd's `NOTIFY_SOCKET`, when there is one.
    let notifier: ServiceNotifier?
    /// How often to earn a watchdog ping, when systemd set `WatchdogSec`.
    let watchdogPingIntervalMs: Int?

    public init(config: Config, configPath: String? = nil) throws(StartupError) {
        self.config = config
        self.configPath = configPath
        Logger.threshold = config.proxy.logLevel
        // A client that vanishes mid-write must surface as EPIPE on that connection, not kill the daemon.
        signal(SIGPIPE, SIG_IGN)
        guard ipd_evbuffer_layout_matches() != 0 else {
            throw StartupError("libevent's buffers are not laid out as libevent 2.1's: run ipdirect with the libevent 2.1 it was built against")
        }
        BlockCache.install()
        Server.raiseDescriptorLimit(for: config.proxy)
        for host in config.tls.insecureHosts.sorted() {
            Logger.warning("event=tls_verification_disabled host=\(host) reason=tls.insecure_hosts details=\"certificates of this host are NOT verified\"")
        }
        let environment: ServiceEnvironment
        switch ServiceEnvironment.read(ownPID: getpid(), { getenv($0).map { String(cString: $0) } }) {
        case .success(let read): environment = read
        case .failure(let problem): throw StartupError("\(problem)")
        }
        notifier = ServiceNotifier(socket: environment.notifySocket)
        watchdogPingIntervalMs = environment.watchdogPingIntervalMs
        let count = config.proxy.workers > 0 ? config.proxy.workers : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let handedDNS = environment.handedSockets.filter { $0.name == DNSListenerSockets.handedName }
        let handedTransparent = environment.handedSockets.filter { $0.name == TransparentShared.handedName }
        let handedProxy = environment.handedSockets.filter {
            $0.name != DNSListenerSockets.handedName && $0.name != TransparentShared.handedName
        }
        workerSockets = try Server.listeningSockets(config: config, handed: handedProxy, workers: count)
        dnsSockets = try Server.dnsSockets(config.dns, handed: handedDNS, workers: count)
        transparentSockets = try Server.transparentSockets(config.transparent, handed: handedTransparent, workers: count)
        let transparent = transparentSockets[0].isEmpty ? nil : TransparentShared()
        // Every connect of the process is recorded from now on, so that the loop check sees them all.
        if let transparent { OwnUpstreamConnections.recording = transparent.ownConnections }
        Server.warnIfOpen(listen: workerSockets[0].map(\.address), access: config.access)
        credentials = try CredentialService(users: try Server.loadUsers(config.access))
        let accessLogFD: Int32?
        switch AccessLogWriter.openDestination(config.proxy.accessLog) {
        case .success(let fd): accessLogFD = fd
        case .failure(let reason): throw reason
        }
        let gate = ConnectionGate(limit: config.proxy.maxConnections)
        let tls = try TLSClientContext(config.tls, trust: TrustStore(config.tls))
        self.tls = tls
        let dnsListenerOn = !dnsSockets[0].datagram.isEmpty || !dnsSockets[0].stream.isEmpty
        let prober = try AddressProber(health: UpstreamHealth(settings: config.upstream.healthSettings), config: config)
        self.prober = prober
        resolver = try ResolverService(config: config, trust: tls.trust, guardsAgainstLoops: dnsListenerOn) { name, addresses in
            prober.answerArrived(for: name, addresses: addresses)
        }
        // Bound before the workers start, so their sessions know every listener that requests must not reach.
        let adminSockets = try Server.bindAdmin(config.admin)
        let ownEndpoints = Server.ownEndpoints(proxy: workerSockets[0], admin: adminSockets, dns: dnsSockets[0],
                                               transparent: transparentSockets[0])
        Logger.info("event=own_endpoints listeners=\"\(ownEndpoints.listeners.map(\.description).joined(separator: ","))\" interface_addresses=\(ownEndpoints.interfaceAddresses.count)")
        let dnsTemplates = dnsListenerOn ? DNSAnswerTemplateStore(slots: config.resolver.cache.maxEntries) : nil
        var workers: [Worker] = []
        for index in 0..<count {
            workers.append(try Worker(index: index, workerCount: count, config: config, ownEndpoints: ownEndpoints, tls: tls,
                                      sockets: workerSockets[index], dnsSockets: dnsSockets[index], dnsTemplates: dnsTemplates,
                                      transparentSockets: transparentSockets[index], transparent: transparent,
                                      accessLogFD: accessLogFD, gate: gate,
                                      resolverService: resolver, credentialService: credentials, prober: prober))
        }
        self.workers = workers
        admin = try AdminServer(sockets: adminSockets, config: config,
                                registry: MetricsRegistry(workers: workers.map(\.metrics), resolver: resolver, health: prober.health,
                                                          credentials: credentials),
                                resolverService: resolver, health: prober.health, queryLogs: workers.map(\.queryLog),
                                workers: workers)
    }

    /// Serves until SIGINT or SIGTERM, then drains; returns the process exit status.
    public func run() -> Int32 {
        // Blocked before any thread starts so every thread inherits the mask and only the main thread sees them.
        let signals = ServiceSignals()
        resolver.start()
        prober.start { [resolver, workers, prober] reason in
            Server.networkChanged(reason: reason, resolver: resolver, workers: workers, health: prober.health)
        }
        credentials.start()
        var threads: [pthread_t] = []
        for worker in workers {
            threads.append(LoopThread.start(named: "worker-\(worker.index)") { worker.run() })
        }
        let addresses = listenAddresses.map(\.description).joined(separator: ",")
        admin.start()
        Logger.info("event=started version=\(IPDirectVersion.string) listen=\(addresses) workers=\(workers.count)")
        notifier?.send(.ready(status: readyStatus))
        var heartbeat = watchdogPingIntervalMs.map { WorkerHeartbeat(mailboxes: workers.map(\.mailbox), intervalMillis: $0) }
        heartbeat?.tickIfDue(notifier)
        var stopSignal: Int32 = SIGTERM
        waiting: while true {
            let received = signals.next(timeoutMillis: heartbeat?.millisUntilDue)
            heartbeat?.tickIfDue(notifier)
            switch received {
            case .stop(let number)?:
                stopSignal = number
                break waiting
            case .reload?:
                repeat {
                    reloadsPending = 0
                    reload(signals: signals, heartbeat: &heartbeat)
                } while reloadsPending > 0 && stopSignalsReceived == 0
                if stopSignalsReceived > 0 { break waiting }
            case nil:
                continue
            }
        }
        Logger.info("event=stopping signal=\(stopSignal)")
        drain(signals: signals, heartbeat: &heartbeat)
        for worker in workers { worker.requestStop() }
        for thread in threads { pthread_join(thread, nil) }
        admin.stop()
        credentials.stop()
        prober.stop()
        resolver.stop()
        Logger.info("event=stopped")
        return 0
    }

    /// Names asked again after a network change: the most recently used, so a large cache does not
    /// become a burst of queries to a provider that may charge per query.
    static let namesRefreshedOnNetworkChange = 256

    /// What the mobile HTTPDNS SDKs do on a network switch: the cached answers stay in use while the
    /// names in use are asked again in the background, what was learned about addresses is forgotten (paths
    /// changed), and idle pooled connections close (they may run over the old path).
    static func networkChanged(reason: String, resolver: ResolverService, workers: [Worker], health: UpstreamHealth) {
        let recent = health.learn { state in
            let hosts = state.table.recentHosts(limit: Server.namesRefreshedOnNetworkChange)
            state.table.forgetAll()
            return hosts
        }
        let names = resolver.refresh(recent)
        let addresses = Server.interfaceAddresses()
        for worker in workers {
            worker.mailbox.post { [worker] in
                worker.pool.closeAll()
                worker.apply(interfaceAddresses: addresses)
            }
        }
        Logger.info("event=network_changed reason=\"\(reason)\" names_refreshed=\(names)")
    }

    /// Every listener of the daemon, which no request through the proxy may reach, with the machine's
    /// addresses that a wildcard listener answers on. Listeners are bound once (a reload keeps them), so
    /// only the addresses change, on a network change.
    static func ownEndpoints(proxy: [ListeningSocket], admin: [ListeningSocket], dns: DNSListenerSockets,
                             transparent: [ListeningSocket] = []) -> OwnEndpoints {
        var endpoints = OwnEndpoints(interfaceAddresses: interfaceAddresses())
        endpoints.add(.proxy, proxy.map(\.boundAddress))
        endpoints.add(.admin, admin.map(\.boundAddress))
        endpoints.add(.dns, dns.addresses)
        endpoints.add(.transparent, transparent.map(\.boundAddress))
        return endpoints
    }

    static func interfaceAddresses() -> Set<IPAddress> {
        Set(InterfaceAddresses.current().map(\.ip))
    }

    /// The addresses served, one per `[proxy] listen` entry (or handed socket), with the port the kernel
    /// chose where the file says 0.
    var listenAddresses: [SocketAddress] { workerSockets[0].map(\.boundAddress) }

    /// The sockets systemd handed over (socket activation), which win over `[proxy] listen`; otherwise
    /// the configured addresses, bound here, one socket per worker for each.
    private static func listeningSockets(config: Config, handed: [ServiceEnvironment.HandedSocket],
                                         workers: Int) throws(StartupError) -> [[ListeningSocket]] {
        guard handed.isEmpty else {
            let sockets = try HandedSockets.take(handed)
            let described = zip(handed, sockets).map { handed, socket in
                "\(socket.address)" + (handed.name.map { "(\($0))" } ?? "")
            }.joined(separator: ",")
            Logger.info("event=socket_activation fds=\(handed.count) listen=\(described)")
            if Set(sockets.map(\.address)) != Set(config.proxy.listen) {
                let configured = config.proxy.listen.map(\.description).joined(separator: ",")
                Logger.info("event=listen_overridden config_listen=\(configured) handed=\(described) reason=\"sockets handed by the service manager win over proxy.listen\"")
            }
            return WorkerListeningSockets.shared(sockets, workers: workers)
        }
        return try WorkerListeningSockets.bind(config.proxy.listen, workers: workers)
    }

    /// The DNS listener's sockets: those the service manager handed over under the name `dns` (UDP and TCP,
    /// shared by every worker; they win over `[dns] listen`, as handed proxy sockets win over `[proxy]
    /// listen`), else the configured addresses, one UDP and one TCP socket per worker for each.
    static func dnsSockets(_ settings: DNSSettings, handed: [ServiceEnvironment.HandedSocket],
                           workers: Int) throws(StartupError) -> [DNSListenerSockets] {
        guard handed.isEmpty else {
            let sockets = try HandedSockets.takeDNS(handed)
            Logger.info("event=socket_activation name=dns udp=\(sockets.datagram.map(\.address.description).joined(separator: ",")) tcp=\(sockets.addresses.map(\.description).joined(separator: ","))")
            return [DNSListenerSockets](repeating: sockets, count: workers)
        }
        let sockets = try DNSListenerSockets.bind(settings.listen, workers: workers)
        if !settings.listen.isEmpty {
            Logger.info("event=dns_listening listen=\(sockets[0].addresses.map(\.description).joined(separator: ","))")
        }
        return sockets
    }

    /// The admin listener's sockets, bound before anything starts so a taken port that the file names
    /// stops startup. A taken built-in default (`[admin]` not written) is only a warning: it is most likely
    /// another ipdirect on this machine, and running several with the default configuration must work.
    static func bindAdmin(_ settings: AdminSettings) throws(StartupError) -> [ListeningSocket] {
        var sockets: [ListeningSocket] = []
        for address in settings.listen {
            do {
                sockets.append(try ListeningSocket(address: address))
            } catch where settings.listenIsExplicit {
                throw StartupError("[admin] listen: \(error) (choose another address, or listen = [] to turn the admin listener off)")
            } catch {
                Logger.warning("event=admin_unavailable listen=\(address) reason=\"\(error)\" note=\"running without the admin listener; set [admin] listen to another address for this instance (or listen = [] to turn it off)\"")
            }
        }
        return sockets
    }

    /// Raises the soft descriptor limit to the hard one, and says so when even that is below what
    /// `max_connections` and `max_pipes` can use (the accept loop then pauses on EMFILE rather than failing).
    static func raiseDescriptorLimit(for settings: ProxySettings) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        let needed = UInt64(settings.descriptorsNeeded)
        if UInt64(limit.rlim_cur) < needed {
            Logger.warning("event=descriptor_limit_low nofile=\(limit.rlim_cur) max_connections=\(settings.maxConnections) max_pipes=\(settings.maxPipes) needs=\(needed)")
        }
    }
}

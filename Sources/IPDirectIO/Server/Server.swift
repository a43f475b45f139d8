import CEvent
import Glibc
import IPDirectCore

/// The daemon: binds the listeners, runs one worker per configured loop, and stops on SIGINT/SIGTERM.
public final class Server {
    private let config: Config
    private let sockets: [ListeningSocket]
    private let workers: [Worker]
    private let resolver: ResolverService
    private let admin: AdminServer

    public init(config: Config) throws(StartupError) {
        self.config = config
        Logger.threshold = config.proxy.logLevel
        // A client that vanishes mid-write must surface as EPIPE on that connection, not kill the daemon.
        signal(SIGPIPE, SIG_IGN)
        Server.raiseDescriptorLimit(for: config.proxy.maxConnections)
        for host in config.tls.insecureHosts.sorted() {
            Logger.warning("event=tls_verification_disabled host=\(host) reason=tls.insecure_hosts details=\"certificates of this host are NOT verified\"")
        }
        var sockets: [ListeningSocket] = []
        for address in config.proxy.listen {
            sockets.append(try ListeningSocket(address: address))
        }
        self.sockets = sockets
        let accessLogFD: Int32?
        switch AccessLogWriter.openDestination(config.proxy.accessLog) {
        case .success(let fd): accessLogFD = fd
        case .failure(let reason): throw reason
        }
        let count = config.proxy.workers > 0 ? config.proxy.workers : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let gate = ConnectionGate(limit: config.proxy.maxConnections)
        resolver = try ResolverService(config: config)
        var workers: [Worker] = []
        for index in 0..<count {
            workers.append(try Worker(index: index, config: config, sockets: sockets, accessLogFD: accessLogFD, gate: gate,
                                      resolverService: resolver))
        }
        self.workers = workers
        admin = try AdminServer(sockets: try Server.bindAdmin(config.admin), config: config,
                                registry: MetricsRegistry(workers: workers.map(\.metrics), resolver: resolver),
                                resolverService: resolver)
    }

    /// Serves until SIGINT or SIGTERM; returns the process exit status.
    public func run() -> Int32 {
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        // Blocked before the workers start so every thread inherits the mask and only sigwait sees them.
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
        resolver.start()
        var threads: [pthread_t] = []
        for worker in workers {
            var thread = pthread_t()
            let context = Unmanaged.passRetained(worker).toOpaque()
            pthread_create(&thread, nil, { context in
                let worker = Unmanaged<Worker>.fromOpaque(context!).takeRetainedValue()
                worker.run()
                return nil
            }, context)
            threads.append(thread)
        }
        let addresses = sockets.map(\.address.description).joined(separator: ",")
        admin.start()
        Logger.info("event=started version=\(IPDirectVersion.string) listen=\(addresses) workers=\(workers.count)")
        var received: Int32 = 0
        sigwait(&stopSignals, &received)
        Logger.info("event=stopping signal=\(received)")
        for worker in workers { worker.requestStop() }
        for thread in threads { pthread_join(thread, nil) }
        admin.stop()
        resolver.stop()
        Logger.info("event=stopped")
        return 0
    }

    /// The admin listener's sockets, bound before anything starts so a taken port stops startup.
    static func bindAdmin(_ settings: AdminSettings) throws(StartupError) -> [ListeningSocket] {
        var sockets: [ListeningSocket] = []
        for address in settings.listen {
            do {
                sockets.append(try ListeningSocket(address: address))
            } catch {
                throw StartupError("[admin] listen: \(error) (choose another address, or listen = [] to turn the admin listener off)")
            }
        }
        return sockets
    }

    /// Descriptors one client connection may hold: client socket, upstream socket, two splice pipes.
    static let descriptorsPerConnection = 6

    /// Raises the soft descriptor limit to the hard one, and says so when even that is below what
    /// `max_connections` can use (the accept loop then pauses on EMFILE rather than failing).
    static func raiseDescriptorLimit(for maxConnections: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        let needed = UInt64(maxConnections * descriptorsPerConnection)
        if UInt64(limit.rlim_cur) < needed {
            Logger.warning("event=descriptor_limit_low nofile=\(limit.rlim_cur) max_connections=\(maxConnections) needs=\(needed)")
        }
    }
}

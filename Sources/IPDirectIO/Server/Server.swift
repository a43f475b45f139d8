import CEvent
import Glibc
import IPDirectCore

/// The daemon: binds the listeners, runs one worker per configured loop, and stops on SIGINT/SIGTERM.
public final class Server {
    private let config: Config
    private let sockets: [ListeningSocket]
    private let workers: [Worker]

    public init(config: Config) throws(StartupError) {
        self.config = config
        Logger.threshold = config.proxy.logLevel
        // A client that vanishes mid-write must surface as EPIPE on that connection, not kill the daemon.
        signal(SIGPIPE, SIG_IGN)
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
        var workers: [Worker] = []
        for index in 0..<count {
            workers.append(try Worker(index: index, config: config, sockets: sockets, accessLogFD: accessLogFD, gate: gate))
        }
        self.workers = workers
    }

    /// Serves until SIGINT or SIGTERM; returns the process exit status.
    public func run() -> Int32 {
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        // Blocked before the workers start so every thread inherits the mask and only sigwait sees them.
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
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
        Logger.info("event=started version=\(IPDirectVersion.string) listen=\(addresses) workers=\(workers.count)")
        var received: Int32 = 0
        sigwait(&stopSignals, &received)
        Logger.info("event=stopping signal=\(received)")
        for worker in workers { worker.requestStop() }
        for thread in threads { pthread_join(thread, nil) }
        Logger.info("event=stopped")
        return 0
    }
}

import IPDirectCore

extension Server {
    /// The transparent listener's sockets: those the service manager handed over under the name `transparent`
    /// (shared by every worker; they win over `[transparent] listen`), else the configured addresses, one
    /// socket per worker for each; none while transparent mode is off.
    static func transparentSockets(_ settings: TransparentSettings, handed: [ServiceEnvironment.HandedSocket],
                                   workers: Int) throws(StartupError) -> [[ListeningSocket]] {
        guard handed.isEmpty else {
            let sockets = try HandedSockets.take(handed)
            Logger.info("event=socket_activation name=\(TransparentShared.handedName) listen=\(sockets.map(\.address.description).joined(separator: ","))")
            return WorkerListeningSockets.shared(sockets, workers: workers)
        }
        let sockets = try WorkerListeningSockets.bind(settings.listen, workers: workers)
        if !settings.listen.isEmpty {
            Logger.info("event=transparent_listening listen=\(sockets[0].map(\.boundAddress.description).joined(separator: ",")) ports=\(settings.ports.map(String.init).joined(separator: ",")) mode=\(settings.mode.rawValue)")
        }
        return sockets
    }
}

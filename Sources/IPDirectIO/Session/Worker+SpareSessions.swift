import IPDirectCore

/// Sessions for the connections that start or wake on this loop: one whose connection ended, reopened, when
/// the worker keeps one that nothing holds any more (`spareSessions`), a new one otherwise.
extension Worker {
    /// A session serving the connection on `client` from now on, its machine begun as `opening` says.
    func session(id: UInt64, client: consuming BufferedSocket, peerAddress: SocketAddress?,
                 configuration: ConnectionSettings, opening: SessionOpening) -> ClientSession {
        guard let spare = spareSessions.take(where: { !$0.isInCallback }) else {
            return ClientSession(worker: self, id: id, client: client, peerAddress: peerAddress, configuration: configuration,
                                 opening: opening)
        }
        spare.reopen(id: id, client: client, peerAddress: peerAddress, configuration: configuration, opening: opening)
        return spare
    }

    /// A new connection's session on the accepted `fd`, with the settings it was accepted under, counted among
    /// the worker's sessions; nil when no bufferevent can be made for it (the descriptor stays open).
    /// `opening`: nil for a proxy client (`ClientSession.opening(for:peerAddress:worker:)`).
    func openSession(fd: Int32, id: UInt64, peerAddress: SocketAddress?, configuration: ConnectionSettings,
                     opening: SessionOpening? = nil) -> ClientSession? {
        guard let client = spareSockets.socket(for: fd, flow: ClientSession.flow(for: configuration)) else { return nil }
        let session = session(id: id, client: client, peerAddress: peerAddress, configuration: configuration,
                              opening: opening ?? ClientSession.opening(for: configuration, peerAddress: peerAddress, worker: self))
        sessions.insert(session)
        return session
    }
}

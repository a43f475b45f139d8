import IPDirectCore

/// Sessions for the connections that start or wake on this loop: one whose connection ended, reopened, when
/// the worker keeps one that nothing holds any more (`spareSessions`), a new one otherwise.
extension Worker {
    /// A session serving the connection on `client`, with `machine`, from now on. Inlined: a call takes the
    /// machine (over 600 bytes) by copying it.
    @inline(__always)
    func session(id: UInt64, client: consuming BufferedSocket, peerAddress: SocketAddress?,
                 configuration: ConnectionSettings, machine: consuming SessionMachine) -> ClientSession {
        guard let spare = spareSessions.take() else {
            return ClientSession(worker: self, id: id, client: client, peerAddress: peerAddress, configuration: configuration,
                                 machine: machine)
        }
        spare.reopen(id: id, client: client, peerAddress: peerAddress, configuration: configuration, machine: machine)
        return spare
    }

    /// A new connection's session on the accepted `fd`, with the settings it was accepted under, counted among
    /// the worker's sessions; nil when no bufferevent can be made for it (the descriptor stays open).
    func openSession(fd: Int32, id: UInt64, peerAddress: SocketAddress?, configuration: ConnectionSettings) -> ClientSession? {
        guard let client = spareSockets.socket(for: fd) else { return nil }
        let session = session(id: id, client: client, peerAddress: peerAddress, configuration: configuration,
                              machine: ClientSession.machine(for: configuration, peerAddress: peerAddress, worker: self))
        sessions.insert(session)
        return session
    }
}

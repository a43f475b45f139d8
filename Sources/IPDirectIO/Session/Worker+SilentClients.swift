import CEvent
import Glibc
import IPDirectCore

/// Accepted connections that have sent nothing yet wait without a session (`SilentClient`), and become one
/// on their first bytes, as they would have been from the accept.
extension Worker {
    /// `fd` was just accepted (and counted against `max_connections`).
    func awaitFirstBytes(fd: Int32, id: UInt64, peerAddress: SocketAddress?) {
        let silent = SilentClient(worker: self, fd: fd, id: id, peerAddress: peerAddress,
                                  configuration: connectionSettings, now: MonotonicClock.nowMicros())
        guard silent.startWatching() else {
            Glibc.close(fd)
            return connectionEnded()
        }
        silentClients.insert(silent)
    }

    /// Bytes or a FIN on a silent connection: a session with the settings and head deadline of the accept.
    func wake(_ silent: SilentClient) {
        guard let client = spareSockets.socket(for: silent.fd) else { return silent.close() }
        silentClients.remove(silent)
        let session = ClientSession(worker: self, id: silent.id, client: client, peerAddress: silent.peerAddress,
                                    configuration: silent.configuration)
        sessions.insert(session)
        // The bufferevent reads the descriptor before the silent event stops: epoll's interest never changes.
        session.start(after: silent.wait)
        silent.stopWatching()
        session.readReadyClient()
    }

    func silentClientEnded(_ silent: SilentClient) {
        if silentClients.remove(silent) { connectionEnded() }
    }

    /// The daemon is stopping: every silent connection is idle and closes. Returns how many closed.
    func drainSilentClients() -> Int {
        let silent = silentClients.all
        for client in silent { client.drain() }
        return silent.count
    }

    /// The loop is ending.
    func closeSilentClients() {
        for client in silentClients.all { client.close() }
    }
}

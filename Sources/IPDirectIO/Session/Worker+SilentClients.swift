import CEvent
import Glibc
import IPDirectCore

/// Accepted connections that have sent nothing yet wait without a session (`SilentClient`), and become one
/// on their first bytes, as they would have been from the accept.
extension Worker {
    /// `fd` was just accepted (and counted against `max_connections`). A client that sent its first bytes
    /// with the handshake, as most do, becomes a session at once; one that has not waits silent, without
    /// buffers or a session, since many connections are opened ahead of use.
    func startOrAwaitFirstBytes(fd: Int32, id: UInt64, peerAddress: SocketAddress?) {
        let scratch = UnsafeMutableRawBufferPointer(start: ipd_read_overflow(), count: Int(IPD_READ_OVERFLOW_BYTES))
        let received = recv(fd, scratch.baseAddress, scratch.count, Int32(MSG_DONTWAIT))
        if received > 0 {
            let configuration = connectionSettings
            guard let session = openSession(fd: fd, id: id, peerAddress: peerAddress, configuration: configuration) else {
                Glibc.close(fd)
                return connectionEnded()
            }
            let now = clock.nowMicros
            return session.start(after: FirstBytesWait(rules: configuration.rules, acceptedAt: now), now: now) {
                session.receiveFirstBytes(UnsafeRawBufferPointer(rebasing: scratch[..<received]))
            }
        }
        guard received < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
            // A FIN or a reset before any byte: nothing to serve.
            Glibc.close(fd)
            return connectionEnded()
        }
        awaitFirstBytes(fd: fd, id: id, peerAddress: peerAddress)
    }

    /// `fd` was just accepted (and counted against `max_connections`) and has nothing to read yet.
    func awaitFirstBytes(fd: Int32, id: UInt64, peerAddress: SocketAddress?) {
        let now = clock.nowMicros
        let silent: SilentClient
        if let spare = spareSilentClients.take() {
            spare.reopen(fd: fd, id: id, peerAddress: peerAddress, configuration: connectionSettings, now: now)
            silent = spare
        } else {
            silent = SilentClient(worker: self, fd: fd, id: id, peerAddress: peerAddress, configuration: connectionSettings,
                                  now: now)
        }
        guard silent.startWatching() else {
            Glibc.close(fd)
            return connectionEnded()
        }
        silentClients.insert(silent)
    }

    /// Bytes or a FIN on a silent connection: a session with the settings and head deadline of the accept.
    func wake(_ silent: SilentClient) {
        guard let session = openSession(fd: silent.fd, id: silent.id, peerAddress: silent.peerAddress,
                                        configuration: silent.configuration) else { return silent.close() }
        silentClients.remove(silent)
        // The bufferevent reads the descriptor before the silent event stops: epoll's interest never changes.
        session.start(after: silent.wait, now: clock.nowMicros) {
            silent.stopWatching()
            spareSilentClients.keep(silent)
            session.readReadyClient()
        }
    }

    func silentClientEnded(_ silent: SilentClient) {
        guard silentClients.remove(silent) else { return }
        spareSilentClients.keep(silent)
        connectionEnded()
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

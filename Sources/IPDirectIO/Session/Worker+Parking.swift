import CEvent
import Glibc
import IPDirectCore

/// Kept-alive client connections parked between requests (`ParkedClients`), and woken when their next
/// bytes come.
extension Worker {
    /// `session` gives up everything but its machine and socket.
    func park(_ session: ClientSession, idleMillis: Int) {
        // Idle between requests, so closing it loses nothing (RFC 9112 §9.6).
        guard let parkedSession = session.machine.parked else { return session.close() }
        let connection = ParkedClients.Connection(fd: session.detachClient(), id: session.id,
                                                  peerAddress: session.peerAddress,
                                                  configuration: session.configuration, session: parkedSession)
        if let parked = sessions.take(session) { spareSessions.keep(parked) }
        guard parkedClients.park(connection, idleMillis: idleMillis) else {
            Glibc.close(connection.fd)
            return connectionEnded()
        }
        metrics.update { $0.connectionsParked += 1 }
    }

    /// Bytes or a FIN on a parked socket: a session again, with new buffers.
    func wake(_ connection: ParkedClients.Connection) {
        metrics.update { $0.connectionsParked -= 1 }
        guard let client = spareSockets.socket(for: connection.fd, flow: ClientSession.flow(for: connection.configuration)) else {
            Glibc.close(connection.fd)
            return connectionEnded()
        }
        let session = session(id: connection.id, client: client, peerAddress: connection.peerAddress,
                              configuration: connection.configuration,
                              opening: .woken(rules: connection.configuration.rules, parked: connection.session))
        sessions.insert(session)
        session.resume()
    }

    func parkedClientEnded() {
        metrics.update { $0.connectionsParked -= 1 }
        connectionEnded()
    }
}

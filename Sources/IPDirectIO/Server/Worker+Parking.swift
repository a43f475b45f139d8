import CEvent
import IPDirectCore

/// Kept-alive client connections parked between requests (`ParkedClient`), and woken when their next
/// bytes come.
extension Worker {
    /// `session` gives up everything but its machine and socket.
    func park(_ session: ClientSession, idleMillis: Int) {
        let parked = ParkedClient(session, fd: session.detachClient(), idleMillis: idleMillis)
        sessions.removeValue(forKey: ObjectIdentifier(session))
        parkedClients[ObjectIdentifier(parked)] = parked
        metrics.update { $0.connectionsParked += 1 }
    }

    /// Bytes or a FIN on a parked socket: a session again, with a new bufferevent.
    func wake(_ parked: ParkedClient) {
        guard let bev = bufferevent_socket_new(base.raw, parked.fd, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            return parked.close()
        }
        parked.handOver()
        parkedClients.removeValue(forKey: ObjectIdentifier(parked))
        metrics.update { $0.connectionsParked -= 1 }
        let session = ClientSession(worker: self, id: parked.id, client: bev, peerAddress: parked.peerAddress,
                                    configuration: parked.configuration, machine: parked.machine)
        sessions[ObjectIdentifier(session)] = session
        session.resume()
    }

    func parkedClientEnded(_ parked: ParkedClient) {
        if parkedClients.removeValue(forKey: ObjectIdentifier(parked)) != nil {
            metrics.update { $0.connectionsParked -= 1 }
            connectionEnded()
        }
        if isDraining { reportIfDrained() }
    }
}

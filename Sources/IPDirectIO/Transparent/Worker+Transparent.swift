import CEvent
import Glibc
import IPDirectCore

/// Connections the kernel redirected to the transparent listener: checked against the original destination
/// before anything else, then a session whose first bytes decide where the connection goes.
extension Worker {
    func acceptRedirected(fd: Int32, address: UnsafeMutablePointer<sockaddr>?) {
        let peer = address.flatMap { SocketAddress(sockaddr: $0) }
        guard gate.tryEnter() else {
            // A redirected client speaks to what it takes for the origin: it gets no HTTP answer.
            Logger.warning("worker=\(index) client=\(peer?.description ?? "-") event=connection_refused reason=max_connections mode=transparent")
            Glibc.close(fd)
            return
        }
        metrics.update { $0.connectionsAccepted += 1; $0.connectionsActive += 1 }
        let id = nextSessionID()
        let now = clock.nowMicros
        guard let transparent, let peer, let family = address?.pointee.sa_family,
              let original = SocketAddress(originalDestinationOf: fd, family: family) else {
            return refuseRedirected(fd, id: id, peer: peer, original: nil, reason: "no_original_destination", .refused,
                                    detail: "the connection was not redirected by netfilter (no conntrack entry)")
        }
        if let listener = ownEndpoints.listener(reachedBy: original) {
            return refuseRedirected(fd, id: id, peer: peer, original: original, reason: "own_listener", .loop,
                                    detail: "its original destination is ipdirect's own \(listener.role) listener",
                                    event: "transparent_loop")
        }
        if transparent.ownConnections.contains(peer: peer, original: original) {
            return refuseRedirected(fd, id: id, peer: peer, original: original, reason: "own_connection", .loop,
                                    detail: "it is one of ipdirect's own upstream connections: the rules do not exempt ipdirect's user (transparent.exempt_user)",
                                    event: "transparent_loop")
        }
        guard config.transparent.ports.contains(original.port) else {
            return refuseRedirected(fd, id: id, peer: peer, original: original, reason: "port", .refused,
                                    detail: "port \(original.port) is not in transparent.ports")
        }
        let asker = AnsweredNames.Asker(connectionFrom: peer.ip, arrivedOn: SocketAddress(localOf: fd)?.ip ?? peer.ip)
        openRedirected(fd, id: id, peer: peer, original: original,
                       answeredName: transparent.answeredNames.name(for: original.ip, askedBy: asker, now: now), now: now)
    }

    /// A session for the redirected connection on `fd`, started on the bytes that came with the handshake, if
    /// any. It never waits silent as a proxy client may: a client of a protocol whose server speaks first sends
    /// nothing, and must still be connected once `sniff_timeout` has passed.
    private func openRedirected(_ fd: Int32, id: UInt64, peer: SocketAddress, original: SocketAddress,
                                answeredName: String?, now: Int64) {
        let scratch = UnsafeMutableRawBufferPointer(start: ipd_read_overflow(), count: Int(IPD_READ_OVERFLOW_BYTES))
        let received = recv(fd, scratch.baseAddress, scratch.count, Int32(MSG_DONTWAIT))
        guard received > 0 || (received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) else {
            // A FIN or a reset before any byte: nothing to serve.
            Glibc.close(fd)
            return connectionEnded()
        }
        let configuration = connectionSettings
        let opening = SessionOpening.redirected(
            rules: configuration.rules, clientPermitted: configuration.clients.permits(peer.ip), draining: isDraining,
            TransparentConnection(original: original, answeredName: answeredName))
        guard let session = openSession(fd: fd, id: id, peerAddress: peer, configuration: configuration, opening: opening) else {
            Glibc.close(fd)
            return connectionEnded()
        }
        session.start(after: FirstBytesWait(rules: configuration.rules, acceptedAt: now), now: now) {
            if received > 0 { session.receiveFirstBytes(UnsafeRawBufferPointer(rebasing: scratch[..<received])) }
        }
    }

    /// Closes a redirected connection before it has a session, with a line that says why.
    private func refuseRedirected(_ fd: Int32, id: UInt64, peer: SocketAddress?, original: SocketAddress?,
                                  reason: String, _ outcome: TransparentOutcome, detail: String,
                                  event: String = "transparent_refused") {
        Logger.warning("session=\(id) client=\(peer?.description ?? "-") event=\(event) orig=\(original?.description ?? "-") reason=\(reason) details=\(LogQuote.quoted(detail))")
        metrics.update { $0.countTransparent(sniffed: .none, outcome: outcome) }
        Glibc.close(fd)
        connectionEnded()
    }
}

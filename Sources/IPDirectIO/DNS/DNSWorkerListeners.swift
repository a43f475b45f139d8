import CEvent
import Glibc
import IPDirectCore

/// One worker's part of the DNS listener: its UDP readers, its TCP acceptors and the TCP connections they
/// accepted, all on the worker's loop.
final class DNSWorkerListeners {
    private unowned let worker: Worker
    private let responder: DNSResponder
    private var datagramListeners: [DNSDatagramListener] = []
    private var acceptors: [ConnectionAcceptor] = []
    private var connections: [ObjectIdentifier: DNSStreamConnection] = [:]

    /// TCP connections one worker keeps open; more are closed on accept. Stub resolvers use UDP and open
    /// TCP only after a truncated answer, for one query or a few.
    static let maximumStreamConnections = 1_024

    init(worker: Worker, sockets: DNSListenerSockets) throws(StartupError) {
        self.worker = worker
        responder = DNSResponder(worker: worker)
        for socket in sockets.datagram {
            guard let listener = DNSDatagramListener(base: worker.base, socket: socket, responder: responder) else {
                throw StartupError("cannot watch DNS listener \(socket.address)/udp")
            }
            datagramListeners.append(listener)
        }
        for socket in sockets.stream {
            guard let acceptor = ConnectionAcceptor(
                base: worker.base, listenFD: socket.fd,
                accepted: { [unowned self] fd, address in accept(fd: fd, address: address) },
                failed: { Logger.error("event=dns_accept_failed reason=\"\(String(cString: strerror(errno)))\"") }) else {
                throw StartupError("cannot watch DNS listener \(socket.address)/tcp")
            }
            acceptors.append(acceptor)
        }
    }

    private func accept(fd: Int32, address: UnsafeMutablePointer<sockaddr>) {
        guard connections.count < Self.maximumStreamConnections, let client = SocketAddress(sockaddr: address),
              let socket = BufferedSocket(socket: fd, base: worker.base) else {
            Glibc.close(fd)
            return
        }
        let connection = DNSStreamConnection(socket: socket, client: client, responder: responder) { [unowned self] closed in
            connections[ObjectIdentifier(closed)] = nil
        }
        connections[ObjectIdentifier(connection)] = connection
        connection.start()
    }

    /// Stops reading and accepting and closes the TCP connections; on the worker's loop, as it ends.
    func close() {
        for listener in datagramListeners { listener.close() }
        for acceptor in acceptors { acceptor.close() }
        datagramListeners = []
        acceptors = []
        for connection in Array(connections.values) { connection.close() }
        responder.close()
    }
}

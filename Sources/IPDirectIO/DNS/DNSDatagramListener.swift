import CEvent
import Glibc
import IPDirectCore

/// Reads DNS queries from one UDP socket on a worker's loop and sends each answer back to where its
/// query came from. Datagrams are taken `batchSize` at a time with one recvmmsg(2), and the answers that
/// templates give at once go back together with one sendmmsg(2): under load, two system calls carry a
/// batch instead of two per query.
final class DNSDatagramListener {
    private let socket: DatagramSocket
    private let responder: DNSResponder
    private var event: OpaquePointer?
    /// Lookups waiting for the resolver; past `maximumPending` new queries that need one are dropped, so a
    /// flood of uncached names costs bounded memory.
    private var pending = 0
    private let received: DatagramBatch
    private let answers: DatagramBatch

    /// Datagrams read with one system call, and batches read per wake-up before other events of the loop
    /// get their turn.
    static let batchSize = 32
    static let batchesPerWake = 2
    static let maximumPending = 4_096
    /// The largest query read: `[dns] udp_payload` at its highest. A larger datagram arrives cut short
    /// (MSG_TRUNC) and is dropped; DNS queries are a few hundred octets.
    static let largestQuery = 4_096

    private static let readable: event_callback_fn = { _, _, context in
        Unmanaged<DNSDatagramListener>.fromOpaque(context!).takeUnretainedValue().readDatagrams()
    }

    init?(base: EventBase, socket: DatagramSocket, responder: DNSResponder) {
        self.socket = socket
        self.responder = responder
        received = DatagramBatch(count: Self.batchSize, size: Self.largestQuery)
        answers = DatagramBatch(count: Self.batchSize, size: DNSAnswerTemplate.maximumSize)
        guard let event = event_new(base.raw, socket.fd, Int16(EV_READ | EV_PERSIST), DNSDatagramListener.readable,
                                    Unmanaged.passUnretained(self).toOpaque()) else { return nil }
        self.event = event
        event_add(event, nil)
    }

    deinit { close() }

    /// Stops reading; the socket belongs to the server. Idempotent.
    func close() {
        guard let event else { return }
        event_free(event)
        self.event = nil
    }

    private func readDatagrams() {
        for _ in 0..<Self.batchesPerWake {
            let count = received.receive(from: socket.fd)
            guard count > 0 else { return }
            var answered = 0
            for index in 0..<count {
                guard !received.wasCut(index), let client = received.peer(index) else { continue }
                let query = received.bytes(index)
                if let size = responder.answerFromTemplate(query, from: client, transport: .udp,
                                                           into: answers.buffer(answered)) {
                    answers.address(answered, to: received, index, size: size)
                    answered += 1
                } else {
                    handle(Array(query), from: client)
                }
            }
            answers.send(answered, on: socket.fd)
            guard count == Self.batchSize else { return }
        }
    }

    private func handle(_ message: [UInt8], from client: SocketAddress) {
        let fd = socket.fd
        var waiting = false
        let start = responder.answer(message, from: client, transport: .udp, mayWait: pending < Self.maximumPending) { [weak self] bytes in
            if waiting { self?.pending -= 1 }
            _ = client.withSockaddr { address, length in
                bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT), address, length) }
            }
        }
        if case .pending = start {
            waiting = true
            pending += 1
        }
    }
}

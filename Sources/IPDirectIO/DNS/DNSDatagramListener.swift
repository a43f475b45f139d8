import CEvent
import Glibc
import IPDirectCore

/// Reads DNS queries from one UDP socket on a worker's loop and sends each answer back to where its
/// query came from.
final class DNSDatagramListener {
    private let socket: DatagramSocket
    private let responder: DNSResponder
    private var event: OpaquePointer?
    /// Lookups waiting for the resolver; past `maximumPending` new queries that need one are dropped, so a
    /// flood of uncached names costs bounded memory.
    private var pending = 0
    /// Where every datagram is received, allocated once: a fresh 64 KiB array per wake-up, zeroed, cost a
    /// quarter of a cached answer's instructions.
    private var buffer = [UInt8](repeating: 0, count: DNSDatagramListener.bufferSize)

    /// Datagrams read per wake-up before other events of the loop get their turn.
    static let datagramsPerWake = 32
    static let maximumPending = 4_096
    /// The largest DNS message (RFC 1035 §4.2.2 length field; also the largest UDP payload).
    private static let bufferSize = 65_535

    private static let readable: event_callback_fn = { _, _, context in
        Unmanaged<DNSDatagramListener>.fromOpaque(context!).takeUnretainedValue().readDatagrams()
    }

    init?(base: EventBase, socket: DatagramSocket, responder: DNSResponder) {
        self.socket = socket
        self.responder = responder
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
        for _ in 0..<Self.datagramsPerWake {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let received = withUnsafeMutablePointer(to: &storage) { storagePointer in
                storagePointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { peer in
                    buffer.withUnsafeMutableBytes { bytes in
                        recvfrom(socket.fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), peer, &length)
                    }
                }
            }
            guard received >= 0 else { return }
            let client = withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress(sockaddr: $0) }
            }
            guard let client else { continue }
            handle(Array(buffer[0..<received]), from: client)
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

import CEvent
import Glibc
import IPDirectCore

/// Performs `DNSForwardAttempts` for one relayed query on a worker's loop: a fresh connected UDP socket per
/// attempt (the kernel picks a random source port, and a connected socket only takes datagrams from the
/// server it was connected to), a TCP connection when an answer is truncated, one timer for each attempt.
/// The completion runs once on the loop, unless the exchange is cancelled first.
final class DNSForwardExchange: ResolveHandle {
    private let base: EventBase
    private var attempts: DNSForwardAttempts
    private var completion: ((DNSForwardAttempts.Action) -> Void)?
    private let timer: Timer
    private var datagramFD: Int32 = -1
    private var datagramEvent: OpaquePointer?
    private var stream = BufferedSocket()
    private(set) var isFinished = false
    /// Runs once when the exchange ends, answered or cancelled, so its owner can let it go.
    var ended: ((DNSForwardExchange) -> Void)?

    /// The largest message a UDP answer can be.
    private static let datagramBufferSize = 65_535

    private static let datagramReadable: event_callback_fn = { _, _, context in
        Unmanaged<DNSForwardExchange>.fromOpaque(context!).takeUnretainedValue().readDatagram()
    }

    init(base: EventBase, attempts: DNSForwardAttempts, completion: @escaping (DNSForwardAttempts.Action) -> Void) {
        self.base = base
        self.attempts = attempts
        self.completion = completion
        timer = Timer(base: base)
        timer.action = { [unowned self] in perform(self.attempts.timedOut()) }
    }

    deinit { closeAttempt() }

    func start() {
        perform(attempts.start())
    }

    func cancel() {
        completion = nil
        closeAttempt()
        end()
    }

    private func end() {
        let ended = self.ended
        self.ended = nil
        ended?(self)
    }

    private func perform(_ action: DNSForwardAttempts.Action) {
        switch action {
        case .keepWaiting:
            return
        case .sendUDP(let server):
            closeAttempt()
            if let problem = sendDatagram(to: server) { return perform(attempts.failed(problem)) }
            timer.schedule(afterMillis: DNSSettings.forwardTimeoutMs)
        case .sendTCP(let server):
            closeAttempt()
            if let problem = connectStream(to: server) { return perform(attempts.failed(problem)) }
            timer.schedule(afterMillis: DNSSettings.forwardTimeoutMs)
        case .answer, .fail:
            closeAttempt()
            isFinished = true
            let completion = self.completion
            self.completion = nil
            completion?(action)
            end()
        }
    }

    private func sendDatagram(to server: SocketAddress) -> String? {
        let fd = socket(server.ip.isIPv6 ? AF_INET6 : AF_INET,
                        Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return "socket: \(String(cString: strerror(errno)))" }
        datagramFD = fd
        let query = attempts.relayed.wire
        guard server.withSockaddr({ connect(fd, $0, $1) }) == 0,
              query.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) == query.count else {
            return String(cString: strerror(errno))
        }
        guard let event = event_new(base.raw, fd, Int16(EV_READ | EV_PERSIST), Self.datagramReadable,
                                    Unmanaged.passUnretained(self).toOpaque()) else { return "cannot watch the socket" }
        datagramEvent = event
        event_add(event, nil)
        return nil
    }

    private func readDatagram() {
        var buffer = [UInt8](repeating: 0, count: Self.datagramBufferSize)
        let received = buffer.withUnsafeMutableBytes { recv(datagramFD, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard received >= 0 else {
            // ECONNREFUSED: an ICMP port unreachable from the server, so the next one is asked at once.
            if errno == EAGAIN || errno == EINTR { return }
            return perform(attempts.failed(String(cString: strerror(errno))))
        }
        perform(attempts.received(Array(buffer[0..<received])))
    }

    private func connectStream(to server: SocketAddress) -> String? {
        guard let socket = BufferedSocket(socket: -1, base: base) else {
            return "cannot make a TCP connection"
        }
        stream = socket
        stream.handOver(to: self, calling: BufferEventCallbacks.dnsForward)
        guard stream.connect(to: server) else {
            return "connect: \(String(cString: strerror(errno)))"
        }
        DNSStreamFraming.append(attempts.relayed.wire, to: stream.output)
        stream.resumeReadingAndWriting()
        return nil
    }

    /// Reads one length-prefixed message (RFC 1035 §4.2.2) once all of it is there.
    func didReadStream() {
        guard stream.isOpen, let message = DNSStreamFraming.takeMessage(from: stream.input) else { return }
        perform(attempts.received(message))
    }

    func didReceiveStream(events: Int16) {
        guard events & Int16(BEV_EVENT_CONNECTED) == 0 else { return }
        perform(attempts.failed(events & Int16(BEV_EVENT_EOF) != 0 ? "closed before answering"
                                    : "TCP: \(String(cString: strerror(errno)))"))
    }

    /// Frees the current attempt's socket and timer; idempotent.
    private func closeAttempt() {
        timer.cancel()
        if let datagramEvent {
            event_free(datagramEvent)
            self.datagramEvent = nil
        }
        if datagramFD >= 0 {
            Glibc.close(datagramFD)
            datagramFD = -1
        }
        stream.close()
    }
}

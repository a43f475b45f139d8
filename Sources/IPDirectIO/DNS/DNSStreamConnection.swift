import CEvent
import Glibc
import IPDirectCore

/// One TCP connection to the DNS listener (RFC 7766): messages after a two-octet length, several queries
/// in flight at once and answered in the order their lookups finish, closed after
/// `DNSSettings.tcpIdleTimeoutMs` with nothing in flight, or at once on a message that cannot be read.
final class DNSStreamConnection {
    private var socket: BufferedSocket
    private let client: SocketAddress
    private unowned let responder: DNSResponder
    /// Called once when the connection is closed, so its owner lets it go.
    private let closed: (DNSStreamConnection) -> Void
    private var lookups: [Int: ResolveHandle] = [:]
    private var nextLookup = 0
    private var inFlight = 0
    private var closeWhenAnswered = false
    private var isClosed = false
    /// Set while `didRead` takes queries, whose answers may come back at once.
    private var isReading = false

    /// Answers waiting for a client that does not read them; past this no more queries are read from it.
    static let maximumUnsentBytes = 256 * 1024

    init(socket: consuming BufferedSocket, client: SocketAddress, responder: DNSResponder, closed: @escaping (DNSStreamConnection) -> Void) {
        self.socket = socket
        self.client = client
        self.responder = responder
        self.closed = closed
    }

    func start() {
        socket.handOver(to: self, calling: BufferEventCallbacks.dnsStream)
        socket.setTimeouts(readMillis: DNSSettings.tcpIdleTimeoutMs, writeMillis: DNSSettings.tcpIdleTimeoutMs)
        socket.resumeReadingAndWriting()
    }

    func didRead() {
        guard !isReading else { return }
        isReading = true
        defer { isReading = false }
        let input = socket.input
        while !isClosed, mayTakeQueries, let message = DNSStreamFraming.takeMessage(from: input) {
            handle(message)
        }
        guard !isClosed else { return }
        // Past either limit the rest waits in the kernel until answers go out.
        if !mayTakeQueries || closeWhenAnswered { socket.pauseReading() }
    }

    /// Whether another query may be read: few enough in flight, and the client reads its answers.
    private var mayTakeQueries: Bool {
        inFlight < DNSSettings.maxQueriesInFlightPerConnection
            && socket.outputLength < Self.maximumUnsentBytes
    }

    func didDrain() {
        resumeReading()
        if closeWhenAnswered, !isClosed, inFlight == 0, socket.outputLength == 0 { close() }
    }

    func didReceive(events: Int16) {
        if events & Int16(BEV_EVENT_TIMEOUT) != 0, inFlight > 0, events & Int16(BEV_EVENT_ERROR) == 0 {
            // Idle only counts with nothing in flight: a slow lookup is not an idle client.
            socket.resumeReadingAndWriting()
            return
        }
        let hasWork = inFlight > 0 || socket.outputLength > 0 || socket.inputLength > 0
        if events & Int16(BEV_EVENT_EOF) != 0, events & Int16(BEV_EVENT_ERROR) == 0, hasWork {
            // A client may send its queries and close its side; the answers still go out.
            closeWhenAnswered = true
            socket.pauseReading()
            return didDrain()
        }
        close()
    }

    private func handle(_ message: [UInt8]) {
        if answerFromTemplate(message) { return }
        inFlight += 1
        let number = nextLookup
        nextLookup += 1
        var answeredAtOnce = false
        let start = responder.answer(message, from: client, transport: .tcp) { [weak self] bytes in
            answeredAtOnce = true
            self?.send(bytes, lookup: number)
        }
        switch start {
        case .dropped:
            close()
        case .answered:
            break
        case .pending(let handle):
            if !answeredAtOnce { lookups[number] = handle }
        }
    }

    /// A repeated question answered from its template, framed in place.
    private func answerFromTemplate(_ message: [UInt8]) -> Bool {
        let prefix = DNSStreamFraming.prefixSize
        return message.withUnsafeBytes { query in
            withUnsafeTemporaryAllocation(byteCount: prefix + DNSAnswerTemplate.maximumSize, alignment: 1) { framed in
                guard let size = responder.answerFromTemplate(query, from: client, transport: .tcp,
                                                              into: UnsafeMutableRawBufferPointer(rebasing: framed[prefix...]))
                else { return false }
                framed[0] = UInt8(size >> 8)
                framed[1] = UInt8(truncatingIfNeeded: size)
                evbuffer_add(socket.output, framed.baseAddress, prefix + size)
                return true
            }
        }
    }

    private func send(_ bytes: [UInt8], lookup: Int) {
        guard !isClosed else { return }
        lookups[lookup] = nil
        inFlight -= 1
        DNSStreamFraming.append(bytes, to: socket.output)
        resumeReading()
    }

    /// Reading stopped at a limit; queries already buffered are taken now, since libevent calls back only
    /// when more bytes arrive.
    private func resumeReading() {
        guard !isClosed, mayTakeQueries else { return }
        if !closeWhenAnswered { socket.resumeReading() }
        if socket.inputLength > 0 { didRead() }
    }

    /// Cancels the lookups still running and frees the connection; idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        for handle in lookups.values { handle.cancel() }
        lookups.removeAll()
        socket.close()
        closed(self)
    }
}

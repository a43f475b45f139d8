import IPDirectCore

/// One request to one address: its deadline, its phase and its single completion. It is the handle
/// `HTTPDNSTransport.send` returns; whoever holds it (the route's queue, an HTTP/1.1 connection or an
/// HTTP/2 stream) sets `detach` so a timeout or a cancel can take it back.
final class HTTPDNSExchange: ResolveHandle, CustomStringConvertible {
    let request: HTTPDNSRequest
    let address: SocketAddress
    var phase = HTTPDNSTransportError.Phase.waitingForConnection
    /// Releases the exchange from its current holder (dequeue, close the HTTP/1.1 connection, reset
    /// the HTTP/2 stream) without completing it.
    var detach: (() -> Void)?
    /// Resent once after a reused keep-alive connection turned out closed before answering.
    var wasRetried = false
    private var completion: ((Result<HTTPDNSResponse, HTTPDNSTransportError>) -> Void)?
    private let timer: Timer
    private let timeoutMillis: Int
    /// Completed or cancelled: nothing may happen to it any more.
    private(set) var isOver = false
    private(set) var isFinished = false
    /// Its deadline passed; the holder learns this while being detached.
    private(set) var hasTimedOut = false

    init(base: EventBase, request: HTTPDNSRequest, address: SocketAddress, timeoutMillis: Int,
         completion: @escaping (Result<HTTPDNSResponse, HTTPDNSTransportError>) -> Void) {
        self.request = request
        self.address = address
        self.timeoutMillis = timeoutMillis
        self.completion = completion
        timer = Timer(base: base)
        timer.action = { [unowned self] in expire() }
        // The deadline covers the whole exchange: connect, TLS, request and the full response.
        timer.schedule(afterMillis: timeoutMillis)
    }

    deinit { timer.cancel() }

    var description: String { "\(request) to \(address) (\(phase))" }

    func cancel() {
        guard !isOver else { return }
        isOver = true
        completion = nil
        timer.cancel()
        releaseFromHolder()
    }

    /// Runs the completion, once; the holder must have let go of the exchange already.
    func finish(_ result: Result<HTTPDNSResponse, HTTPDNSTransportError>) {
        guard !isOver else { return }
        isOver = true
        detach = nil
        timer.cancel()
        let completion = self.completion
        self.completion = nil
        isFinished = true
        completion?(result)
    }

    private func expire() {
        guard !isOver else { return }
        let phase = self.phase
        hasTimedOut = true
        releaseFromHolder()
        finish(.failure(.timedOut(phase: phase, millis: timeoutMillis)))
    }

    private func releaseFromHolder() {
        let detach = self.detach
        self.detach = nil
        detach?()
    }
}

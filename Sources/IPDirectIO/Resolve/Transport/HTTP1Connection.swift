import CEvent
import Glibc
import IPDirectCore

/// One HTTP/1.1 connection to an HTTPDNS endpoint address: one exchange at a time (no pipelining),
/// kept idle between exchanges when the response allowed keep-alive (RFC 9112 §9.3).
final class HTTP1Connection {
    let upstream: UpstreamConnection
    private weak var route: HTTPDNSRoute?
    private var exchange: HTTPDNSExchange?
    private var reader = HTTP1ResponseReader(requestMethod: .get)
    private var closed = false
    /// Carried at least one complete exchange: a close before any answer may just mean it went stale.
    private var hasServedBefore = false

    init(upstream: UpstreamConnection, route: HTTPDNSRoute) {
        self.upstream = upstream
        self.route = route
    }

    deinit { close() }

    var isBusy: Bool { exchange != nil }

    /// Whether an idle connection can still take a request: the server may have closed it while idle.
    var looksReusable: Bool { !closed && upstream.looksReusable }

    /// Sends the request of `exchange` and reads its response.
    func start(_ exchange: HTTPDNSExchange) {
        precondition(self.exchange == nil && !closed, "HTTP/1.1 connection reused while busy or closed")
        self.exchange = exchange
        reader = HTTP1ResponseReader(requestMethod: exchange.request.method == .post ? .post : .get)
        exchange.phase = .awaitingResponse
        exchange.detach = { [weak self] in self?.abandon() }
        listen()
        // The exchange's own timer bounds the wait; no idle timeout while busy.
        upstream.setReadTimeout(nil)
        let bytes = HTTPDNSRequestEncoder.http1Bytes(exchange.request, authority: route?.endpoint.authority ?? "")
        bytes.withUnsafeBytes { upstream.socket.write($0) }
    }

    /// Waits idle: any byte, EOF or `timeoutMillis` of silence ends the connection.
    func waitIdle(timeoutMillis: Int) {
        listen()
        upstream.setReadTimeout(timeoutMillis)
    }

    private func listen() {
        upstream.socket.handOver(to: self, calling: BufferEventCallbacks.http1)
        upstream.socket.resumeReadingAndWriting()
    }

    func didRead() {
        let input = upstream.socket.input
        let count = ipd_evbuffer_length(input)
        var bytes = [UInt8](repeating: 0, count: count)
        if count > 0 { evbuffer_remove(input, &bytes, count) }
        guard exchange != nil else {
            // An idle connection must stay silent (RFC 9112 §9.3.2 allows no unsolicited response).
            return endIdle()
        }
        handle(reader.receive(bytes))
    }

    func didReceive(events: Int16) {
        let code = errno
        guard let exchange else { return endIdle() }
        if events & Int16(BEV_EVENT_EOF) != 0 {
            if hasServedBefore && !reader.receivedAnything && !exchange.wasRetried {
                // RFC 9112 §9.3.1: a server may close an idle connection just as a request goes out;
                // the request was not processed, so it goes to a fresh connection once.
                return endStale(exchange)
            }
            return handle(reader.receiveEnd())
        }
        if events & Int16(BEV_EVENT_ERROR) != 0 {
            let reason = upstream.isTLS ? (upstream.socket.takeOpenSSLError() ?? Connector.errnoText(code))
                                        : Connector.errnoText(code)
            if hasServedBefore && !reader.receivedAnything && !exchange.wasRetried {
                return endStale(exchange)
            }
            return fail(.connectionClosed(reason))
        }
    }

    private func handle(_ progress: HTTP1ResponseReader.Progress) {
        guard let exchange else { return }
        switch progress {
        case .needMore:
            if reader.receivedAnything { exchange.phase = .readingBody }
        case .complete(let response, let reusable):
            self.exchange = nil
            exchange.detach = nil
            hasServedBefore = true
            if !reusable { close() }
            route?.http1Finished(self, reusable: reusable)
            exchange.finish(response.outcome)
        case .failed(let error):
            fail(error)
        }
    }

    private func fail(_ error: HTTPDNSTransportError) {
        guard let exchange else { return }
        self.exchange = nil
        exchange.detach = nil
        close()
        route?.http1Finished(self, reusable: false)
        exchange.finish(.failure(error))
    }

    private func endStale(_ exchange: HTTPDNSExchange) {
        self.exchange = nil
        exchange.detach = nil
        exchange.wasRetried = true
        close()
        route?.http1Finished(self, reusable: false)
        route?.retry(exchange)
    }

    /// The exchange timed out or was cancelled mid-response: the connection cannot be reused.
    private func abandon() {
        guard exchange != nil else { return }
        exchange = nil
        close()
        route?.http1Finished(self, reusable: false)
    }

    private func endIdle() {
        close()
        route?.idleHTTP1Ended(self)
    }

    /// Closes the connection; an exchange in flight fails without the route hearing of it (the route
    /// itself is closing).
    func closeFailingExchange() {
        let exchange = self.exchange
        self.exchange = nil
        close()
        exchange?.detach = nil
        exchange?.finish(.failure(.connectionClosed("the transport was closed")))
    }

    func close() {
        guard !closed else { return }
        closed = true
        upstream.close()
    }
}

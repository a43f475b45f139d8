import CEvent
import Glibc
import IPDirectCore

/// One HTTP/2 connection (RFC 9113) to an HTTPDNS endpoint address, driven by nghttp2 over the
/// connection's bufferevent: every exchange to the address is a stream on it, up to the server's
/// SETTINGS_MAX_CONCURRENT_STREAMS. Results found inside nghttp2 callbacks are only recorded there and
/// delivered once nghttp2 has returned, so a completion may close the transport safely.
final class HTTP2Connection {
    /// One exchange in flight as a stream.
    private final class Stream {
        let exchange: HTTPDNSExchange
        var status: Int?
        var contentType: String?
        var body: [UInt8] = []
        var sentBodyBytes = 0
        var failure: HTTPDNSTransportError?

        init(exchange: HTTPDNSExchange) {
            self.exchange = exchange
        }
    }

    let upstream: UpstreamConnection
    private weak var route: HTTPDNSRoute?
    private let endpoint: HTTPDNSEndpoint
    private let limits: HTTPDNSTransport.Limits
    private var session: OpaquePointer?
    private var streams: [Int32: Stream] = [:]
    /// Completions recorded inside nghttp2 callbacks, delivered by `settle`.
    private var finished: [(HTTPDNSExchange, Result<HTTPDNSResponse, HTTPDNSTransportError>)] = []
    /// A stream slot freed or the connection stopped taking streams: the route should look again.
    private var routeShouldPump = false
    private let idleTimer: Timer
    private(set) var isClosed = false
    /// A stream timed out: the connection may be dead without knowing it (a server that hangs, a NAT that
    /// forgot the flow), so it takes no new streams and closes once its open ones end.
    private(set) var isRetired = false

    init(upstream: UpstreamConnection, route: HTTPDNSRoute, base: EventBase, endpoint: HTTPDNSEndpoint,
         limits: HTTPDNSTransport.Limits) {
        self.upstream = upstream
        self.route = route
        self.endpoint = endpoint
        self.limits = limits
        idleTimer = Timer(base: base)
        idleTimer.action = { [unowned self] in idleTimeExpired() }
        guard let session = HTTP2Callbacks.makeClientSession(for: self) else {
            isClosed = true
            upstream.close()
            return
        }
        self.session = session
        // RFC 9113 §6.5.2: a resolver has no use for server push.
        var settings = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0)]
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        upstream.socket.handOver(to: self, calling: BufferEventCallbacks.http2)
        upstream.setReadTimeout(nil)
        upstream.socket.resumeReadingAndWriting()
        // The server's SETTINGS may have arrived with the end of the TLS handshake, before the callbacks.
        if upstream.socket.inputLength > 0 { upstream.socket.triggerRead() }
        // The client connection preface and SETTINGS (RFC 9113 §3.4) go out now.
        flush()
        idleTimer.schedule(afterMillis: limits.idleTimeoutMillis)
    }

    deinit {
        idleTimer.cancel()
        if let session { nghttp2_session_del(session) }
        upstream.close()
    }

    /// Takes new streams: open, and neither side has sent GOAWAY.
    var isUsable: Bool {
        guard let session, !isClosed, !isRetired else { return false }
        return nghttp2_session_check_request_allowed(session) != 0
    }

    var hasOpenStreams: Bool { !streams.isEmpty }

    /// RFC 9113 §5.1.2: no more streams than the server allows (and our own cap).
    var hasStreamCapacity: Bool {
        guard isUsable, let session else { return false }
        let allowed = nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
        return streams.count < min(limits.maximumConcurrentStreams, Int(allowed))
    }

    /// Opens a stream for `exchange`: the pseudo-header fields, the format's fields, and for a POST
    /// the body through a data provider.
    func start(_ exchange: HTTPDNSExchange) {
        guard let session, isUsable else {
            exchange.detach = nil
            return exchange.finish(.failure(.connectionClosed("the HTTP/2 connection no longer takes requests")))
        }
        idleTimer.cancel()
        let fields = HTTPDNSRequestEncoder.http2Fields(exchange.request, endpoint: endpoint)
        let streamID = HTTP2Connection.submit(session, fields, hasBody: !exchange.request.body.isEmpty)
        guard streamID > 0 else {
            exchange.detach = nil
            return exchange.finish(.failure(.protocolError(String(cString: nghttp2_strerror(streamID)))))
        }
        streams[streamID] = Stream(exchange: exchange)
        exchange.phase = .awaitingResponse
        exchange.detach = { [weak self] in self?.abandon(streamID: streamID) }
        flush()
        settle()
    }

    /// nghttp2 copies the name/value pairs and the data provider during the call, so they only need
    /// to live that long.
    private static func submit(_ session: OpaquePointer, _ fields: [(name: String, value: String)], hasBody: Bool) -> Int32 {
        var storage: [UInt8] = []
        var ranges: [(name: Range<Int>, value: Range<Int>)] = []
        for field in fields {
            let nameStart = storage.count
            storage += field.name.utf8
            let valueStart = storage.count
            storage += field.value.utf8
            ranges.append((nameStart..<valueStart, valueStart..<storage.count))
        }
        return storage.withUnsafeMutableBufferPointer { bytes in
            let base = bytes.baseAddress!
            var pairs = ranges.map {
                nghttp2_nv(name: base + $0.name.lowerBound, value: base + $0.value.lowerBound,
                           namelen: $0.name.count, valuelen: $0.value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            guard hasBody else { return nghttp2_submit_request(session, nil, &pairs, pairs.count, nil, nil) }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: HTTP2Callbacks.readBody)
            return nghttp2_submit_request(session, nil, &pairs, pairs.count, &provider, nil)
        }
    }

    // MARK: Events from the bufferevent

    func didRead() {
        guard let session, !isClosed else { return }
        let input = upstream.socket.input
        let length = ipd_evbuffer_length(input)
        guard length > 0, let bytes = evbuffer_pullup(input, -1) else { return }
        let consumed = nghttp2_session_mem_recv(session, bytes, length)
        evbuffer_drain(input, length)
        if consumed < 0 {
            // nghttp2 queued a GOAWAY for the protocol error: send it, then end the connection.
            flush()
            close(failing: .protocolError(String(cString: nghttp2_strerror(Int32(consumed)))))
        } else {
            flush()
        }
        settle()
    }

    func didReceive(events: Int16) {
        let code = errno
        if events & Int16(BEV_EVENT_EOF) != 0 {
            close(failing: .connectionClosed("the server closed the HTTP/2 connection"))
        } else if events & Int16(BEV_EVENT_ERROR) != 0 {
            let reason = upstream.socket.takeOpenSSLError() ?? Connector.errnoText(code)
            close(failing: .connectionClosed(reason))
        }
        settle()
    }

    // MARK: Calls from nghttp2 callbacks (record only)

    func didReceiveHeader(frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
              let stream = streams[frame.pointee.hd.stream_id] else { return }
        let fieldName = String(decoding: name, as: UTF8.self)
        if fieldName == ":status" {
            // An interim 1xx head comes first (RFC 9113 §8.1); the final one overwrites it.
            stream.status = Int(String(decoding: value, as: UTF8.self))
            stream.exchange.phase = .readingBody
        } else if fieldName == "content-type" {
            stream.contentType = String(decoding: value, as: UTF8.self)
        }
    }

    func didReceiveData(streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID], stream.failure == nil, let session else { return }
        guard stream.body.count + data.count <= limits.bodyLimit else {
            stream.failure = .bodyTooLarge(limit: limits.bodyLimit)
            // RFC 9113 §8.1: CANCEL tells the server the response is no longer wanted.
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
            return
        }
        stream.body += data
    }

    func didReceiveFrame(_ frame: UnsafePointer<nghttp2_frame>) {
        switch UInt32(frame.pointee.hd.type) {
        case NGHTTP2_GOAWAY.rawValue:
            // Streams above the GOAWAY's last stream id are closed by nghttp2 as REFUSED_STREAM.
            routeShouldPump = true
        case NGHTTP2_SETTINGS.rawValue where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            // The server's stream limit is known now: queued exchanges may use it.
            routeShouldPump = true
        default:
            break
        }
    }

    func streamDidClose(streamID: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        routeShouldPump = true
        stream.exchange.detach = nil
        finished.append((stream.exchange, HTTP2Connection.outcome(of: stream, errorCode: errorCode)))
    }

    func readRequestBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int,
                         flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let stream = streams[streamID] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let body = stream.exchange.request.body
        let count = min(capacity, body.count - stream.sentBodyBytes)
        body.withUnsafeBufferPointer { source in
            buffer.update(from: source.baseAddress! + stream.sentBodyBytes, count: count)
        }
        stream.sentBodyBytes += count
        if stream.sentBodyBytes == body.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }

    private static func outcome(of stream: Stream, errorCode: UInt32) -> Result<HTTPDNSResponse, HTTPDNSTransportError> {
        if let failure = stream.failure { return .failure(failure) }
        if errorCode == NGHTTP2_REFUSED_STREAM.rawValue {
            // RFC 9113 §8.7: a refused stream was not processed; another address may take it.
            return .failure(.connectionClosed("the server refused the stream before processing it"))
        }
        if errorCode != NGHTTP2_NO_ERROR.rawValue {
            return .failure(.protocolError("stream reset: \(String(cString: nghttp2_http2_strerror(errorCode)))"))
        }
        guard let status = stream.status else { return .failure(.protocolError("stream ended without a :status")) }
        return HTTPDNSResponse(status: status, contentType: stream.contentType, body: stream.body,
                               protocolName: HTTPDNSResponse.http2).outcome
    }

    // MARK: Sending, closing, delivering

    /// Moves everything nghttp2 wants to send into the bufferevent.
    private func flush() {
        guard let session, !isClosed else { return }
        while true {
            var data: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &data)
            if length < 0 {
                return close(failing: .protocolError(String(cString: nghttp2_strerror(Int32(length)))))
            }
            guard length > 0, let data else { break }
            upstream.socket.write(UnsafeRawBufferPointer(start: data, count: length))
        }
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
            // Both sides are done (GOAWAY exchanged, no stream left).
            close(failing: .connectionClosed("the HTTP/2 connection ended"))
        }
    }

    /// The exchange timed out or was cancelled: reset its stream. A cancel keeps the connection; a
    /// timeout retires it, so later requests do not queue behind a connection that may be dead.
    private func abandon(streamID: Int32) {
        guard let stream = streams.removeValue(forKey: streamID), let session, !isClosed else { return }
        routeShouldPump = true
        if stream.exchange.hasTimedOut && !isRetired {
            isRetired = true
            Logger.info("event=httpdns_connection_retired endpoint=\(endpoint) address=\(upstream.address) reason=\"a stream timed out\" open_streams=\(streams.count)")
        }
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
        flush()
        settle()
    }

    private func idleTimeExpired() {
        guard streams.isEmpty, let session, !isClosed else { return }
        // RFC 9113 §6.8: say goodbye before closing an idle connection.
        _ = nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue)
        flush()
        close(failing: .connectionClosed("idle"))
        settle()
    }

    /// Ends the connection; open streams fail with `error` (delivered by `settle`).
    func close(failing error: HTTPDNSTransportError = .connectionClosed("the transport was closed")) {
        guard !isClosed else { return }
        isClosed = true
        routeShouldPump = true
        idleTimer.cancel()
        for stream in streams.values {
            stream.exchange.detach = nil
            finished.append((stream.exchange, .failure(error)))
        }
        streams.removeAll()
        if let session {
            nghttp2_session_del(session)
            self.session = nil
        }
        upstream.close()
    }

    /// Tells the route what changed, then runs the recorded completions; must be the last thing an
    /// entry point does, as a completion may close the transport.
    private func settle() {
        if isRetired && streams.isEmpty && !isClosed {
            if let session { _ = nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue) }
            flush()
            close(failing: .connectionClosed("retired after a timeout"))
        }
        if streams.isEmpty && !isClosed { idleTimer.schedule(afterMillis: limits.idleTimeoutMillis) }
        if routeShouldPump {
            routeShouldPump = false
            route?.http2Changed(self)
        }
        while !finished.isEmpty {
            let (exchange, result) = finished.removeFirst()
            exchange.finish(result)
        }
    }

    /// Closes now and delivers the failures (used by the route when the transport closes).
    func closeAndSettle() {
        close()
        settle()
    }
}

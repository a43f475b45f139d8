import CEvent
import Glibc
import IPDirectCore

/// Streaming request and response bodies between the two bufferevents, and ending exchanges.
extension ClientSession {
    /// Moves request body bytes to the upstream, pausing the client when the upstream falls behind.
    func pumpRequestBody() {
        guard let upstream, var current = exchange else { return }
        let moved = pump(&current.requestBody, from: clientInput, to: upstream.bev, after: &pendingUpstreamHead)
        current.bytesFromClient += moved.bytes
        exchange = current
        if !pendingUpstreamHead.isEmpty {
            ByteTransfer.send(pendingUpstreamHead, to: upstream.bev)
            pendingUpstreamHead = []
        }
        if let failure = moved.failure {
            return failInvalidBody(failure, fromClient: true)
        }
        if current.requestBody.isComplete {
            armResponseTimeout()
        } else {
            if moved.bytes > 0 { lastActivityMicros = MonotonicClock.nowMicros() }
            if clientReadClosed && evbuffer_get_length(clientInput) == 0 {
                exchange?.note = "client closed before sending the whole request body"
                return close()
            }
        }
        if evbuffer_get_length(upstream.output) >= ClientSession.outputHighWater {
            bufferevent_disable(client, Int16(EV_READ))
        }
    }

    /// The response timeout runs only once the whole request is on its way: a slow upload is the
    /// client's pace (bounded by `client_idle_timeout`), not a silent server.
    private func armResponseTimeout() {
        guard let upstream, exchange?.responseTimeoutArmed == false else { return }
        exchange?.responseTimeoutArmed = true
        exchange?.requestSentMicros = MonotonicClock.nowMicros()
        cancelIdleLimit()
        let millis = settings.responseTimeoutMs
        var timeout = timeval(tv_sec: millis / 1000, tv_usec: millis % 1000 * 1000)
        bufferevent_set_timeouts(upstream.bev, &timeout, nil)
    }

    /// Reads interim and final response heads from the upstream and forwards them rewritten.
    func parseResponseHeads() {
        guard let upstream else { return }
        while state == .forwarding, exchange?.responseStarted == false {
            let input = upstream.input
            let length = evbuffer_get_length(input)
            guard length > 0 else { return }
            exchange!.receivedResponseBytes = true
            let peek = min(length, settings.maxHeaderBytes + 1)
            guard let start = evbuffer_pullup(input, peek) else { return }
            let bytes = UnsafeRawBufferPointer(start: start, count: peek)
            let method = exchange!.methodKind
            switch ResponseHeadParser.parse(bytes, requestMethod: method, limits: configuration.headLimits) {
            case .incomplete:
                return
            case .invalid(let parseError):
                return respond(with: ProxyError(status: 502, kind: .httpProtocolError,
                                                details: "invalid response from \(upstream.address): \(parseError.reason)"))
            case .complete(let head):
                forwardResponseHead(head, bytes: bytes, from: upstream)
            }
        }
        if state == .forwarding, exchange?.responseStarted == true { pumpResponseBody() }
    }

    private func forwardResponseHead(_ head: ResponseHead, bytes: UnsafeRawBufferPointer, from upstream: UpstreamConnection) {
        guard var current = exchange else { return }
        if current.firstByteWanted, let sent = current.requestSentMicros {
            current.firstByteWanted = false
            worker.health.recordFirstByte(upstream.address, for: current.hostKey, micros: MonotonicClock.nowMicros() - sent)
        }
        if head.status == 101 {
            guard current.upgradeRequested else {
                return respond(with: ProxyError(status: 502, kind: .httpProtocolError,
                                                details: "\(upstream.address) switched protocols without an Upgrade request"))
            }
            let rewritten = HeadRewriter.clientResponse(head, in: bytes, viaName: settings.viaName, keepUpgrade: true, persistence: .persistent)
            evbuffer_drain(upstream.input, head.headLength)
            current.status = 101
            current.firstByteMicros = MonotonicClock.nowMicros() - current.startMicros
            exchange = current
            sendToClient(rewritten)
            return startTunnel()
        }
        if head.status < 200 {
            // Interim responses (100 Continue, 103 Early Hints) pass through; the final one follows.
            current.interimResponses += 1
            exchange = current
            guard current.interimResponses <= ClientSession.maxInterimResponses else {
                return respond(with: ProxyError(status: 502, kind: .httpProtocolError,
                                                details: "\(upstream.address) sent more than \(ClientSession.maxInterimResponses) interim responses"))
            }
            let rewritten = HeadRewriter.clientResponse(head, in: bytes, viaName: settings.viaName, keepUpgrade: false, persistence: .persistent)
            evbuffer_drain(upstream.input, head.headLength)
            sendToClient(rewritten)
            if evbuffer_get_length(clientOutput) >= ClientSession.outputHighWater {
                bufferevent_disable(upstream.bev, Int16(EV_READ))
            }
            return
        }
        let persistence = ResponsePersistence(
            clientVersion: current.clientVersion, clientKeepAlive: current.keepAlive, framing: head.framing,
            mustClose: !head.keepAlive || !current.requestBody.isComplete || clientHasNoMoreRequests)
        let close = persistence.closes
        let rewritten = HeadRewriter.clientResponse(head, in: bytes, viaName: settings.viaName, keepUpgrade: false,
                                                    persistence: persistence)
        evbuffer_drain(upstream.input, head.headLength)
        current.status = head.status
        current.firstByteMicros = MonotonicClock.nowMicros() - current.startMicros
        current.responseStarted = true
        current.upstreamKeepAlive = head.keepAlive && head.framing != .untilClose
        current.closeClientAfter = close
        current.responseBody = BodyProgress(head.framing)
        current.bytesToClient += UInt64(rewritten.count)
        exchange = current
        pendingClientHead = rewritten
    }

    /// Moves response body bytes to the client, pausing the upstream when the client falls behind.
    func pumpResponseBody() {
        guard let upstream, var current = exchange, current.responseStarted else { return }
        let moved = pump(&current.responseBody, from: upstream.input, to: client, after: &pendingClientHead)
        current.bytesToClient += moved.bytes
        exchange = current
        if !pendingClientHead.isEmpty {
            ByteTransfer.send(pendingClientHead, to: client)
            pendingClientHead = []
        }
        if let failure = moved.failure {
            return failInvalidBody(failure, fromClient: false)
        }
        if current.responseBody.isComplete {
            return finishExchange()
        }
        if evbuffer_get_length(clientOutput) >= ClientSession.outputHighWater {
            bufferevent_disable(upstream.bev, Int16(EV_READ))
        }
    }

    /// Moves what `progress` allows from `source` to the `destination` connection.
    /// `head`, when not empty, is sent in the same write as the first bytes moved.
    private func pump(_ progress: inout BodyProgress, from source: OpaquePointer, to destination: OpaquePointer,
                      after head: inout [UInt8]) -> (bytes: UInt64, failure: HTTPParseError?) {
        func move(limit: Int? = nil) -> Int {
            ByteTransfer.move(from: source, to: destination, limit: limit, after: &head, staging: worker.staging)
        }
        var total: UInt64 = 0
        while true {
            let available = evbuffer_get_length(source)
            switch progress {
            case .complete:
                return (total, nil)
            case .untilClose:
                total += UInt64(move())
                return (total, nil)
            case .remaining(let left):
                let moved = UInt64(move(limit: Int(min(left, UInt64(available)))))
                total += moved
                progress = left == moved ? .complete : .remaining(left - moved)
                return (total, nil)
            case .chunked(var scanner):
                guard available > 0 else { return (total, nil) }
                switch scanner.step {
                case .passData(let left):
                    let moved = move(limit: Int(min(left, UInt64(available))))
                    guard moved > 0 else { return (total, nil) }
                    scanner.didPassData(UInt64(moved))
                    total += UInt64(moved)
                    progress = .chunked(scanner)
                case .needControl:
                    let peek = min(available, ClientSession.controlPeekBytes)
                    guard let start = evbuffer_pullup(source, peek) else { return (total, nil) }
                    switch scanner.scanControl(UnsafeRawBufferPointer(start: start, count: peek)) {
                    case .incomplete:
                        progress = .chunked(scanner)
                        return (total, nil)
                    case .consumed(let count):
                        total += UInt64(move(limit: count))
                        progress = .chunked(scanner)
                    case .finished(let count):
                        total += UInt64(move(limit: count))
                        progress = .complete
                    case .invalid(let failure):
                        progress = .chunked(scanner)
                        return (total, failure)
                    }
                }
            }
        }
    }

    private func failInvalidBody(_ failure: HTTPParseError, fromClient: Bool) {
        if exchange?.responseStarted == false {
            let error = fromClient
                ? ProxyError.badRequest(failure)
                : ProxyError(status: 502, kind: .httpProtocolError, details: "invalid response body framing: \(failure.reason)")
            return respond(with: error)
        }
        exchange?.note = "invalid \(fromClient ? "request" : "response") body framing: \(failure.reason)"
        close()
    }

    /// The response is complete: log it, park or drop the upstream, and serve the next request.
    func finishExchange() {
        guard let current = exchange else { return }
        logExchange(current)
        if let upstream {
            let reusable = current.upstreamKeepAlive && current.requestBody.isComplete && !upstreamReadClosed
                && !current.isConnect && evbuffer_get_length(upstream.input) == 0
            bufferevent_setcb(upstream.bev, nil, nil, nil, nil)
            if reusable { worker.pool.checkin(upstream) } else { upstream.close() }
            self.upstream = nil
        }
        exchange = nil
        // While the daemon drains, a finished exchange ends its keep-alive connection.
        if current.closeClientAfter || clientHasNoMoreRequests || worker.isDraining {
            return beginClosing()
        }
        state = .readingHead
        if !clientReadClosed { ClientSession.resumeReading(client) }
        setIdleLimit(millis: settings.clientIdleTimeoutMs, reason: "client_idle_timeout")
        parseClientInput()
    }

    /// Answers the current request with an error generated by the proxy itself. The client
    /// connection stays open only when the request was well-framed and fully consumed.
    func respond(with error: ProxyError) {
        var current = exchange ?? Exchange(method: "-", methodKind: .other, host: "-", port: 0, isConnect: false,
                                           keepAlive: false, upgradeRequested: false,
                                           startMicros: MonotonicClock.nowMicros())
        let malformed = error.kind == .httpRequestError && error.status != 403
        let persistence = ResponsePersistence.lengthDelimited(
            clientVersion: current.clientVersion, clientKeepAlive: current.keepAlive,
            mustClose: malformed || current.isConnect || !current.requestBody.isComplete || clientHasNoMoreRequests)
        let close = persistence.closes
        current.status = error.status
        current.note = error.details
        current.closeClientAfter = close
        current.upstreamKeepAlive = false
        exchange = current
        Logger.warning("session=\(id) client=\(peer) target=\(current.hostPort) status=\(error.status) error=\(error.kind.rawValue) details=\"\(error.details)\"")
        sendToClient(error.response(proxyName: settings.viaName, persistence: persistence))
        abandonUpstreamWork()
        finishExchange()
    }

    func logExchange(_ current: Exchange) {
        worker.metrics.update { $0.count(current) }
        guard worker.accessLog.isEnabled else { return }
        worker.accessLog.append(AccessLogRecord(
            unixMillis: MonotonicClock.wallMillis(), client: peer, method: current.method, target: current.hostPort,
            upstream: current.upstreamAddress, source: current.source,
            cacheAgeMillis: current.cacheAgeMillis, status: current.status,
            bytesFromClient: current.bytesFromClient, bytesToClient: current.bytesToClient,
            resolveMicros: current.resolveMicros, connectMicros: current.connectMicros,
            attempts: current.connectAttempts, addressRank: current.addressRank, totalMicros: MonotonicClock.nowMicros() - current.startMicros, note: current.note))
    }

    // MARK: - Closing

    func clientDidClose(eof: Bool, reason: String) {
        clientReadClosed = true
        guard eof else {
            if exchange?.note.isEmpty == true { exchange?.note = "client \(reason) during \(state)" }
            return close()
        }
        // A half-close ends the client's requests, not its interest in the answers: what is queued or
        // still to come is delivered before the connection closes.
        switch state {
        case .resolving, .connecting:
            break
        case .forwarding:
            pumpRequestBody()
        case .tunneling:
            relay(fromClient: true)
            finishHalfClose()
        case .readingHead:
            if exchange == nil && evbuffer_get_length(clientInput) == 0 { beginClosing() } else { parseClientInput() }
        case .closing:
            if evbuffer_get_length(clientOutput) == 0 { close() }
        case .closed:
            break
        }
    }

    func upstreamDidClose(eof: Bool, timeout: Bool, reason: String) {
        guard let upstream else { return }
        upstreamReadClosed = true
        switch state {
        case .tunneling where eof:
            relay(fromClient: false)
            finishHalfClose()
        case .forwarding:
            guard let current = exchange else { return close() }
            if !current.responseStarted {
                if !timeout && !upstream.reused && !current.receivedResponseBytes {
                    worker.health.hostFailed(upstream.address, for: current.hostKey,
                                             reason: "\(reason) before any response byte")
                }
                // A pooled connection the server dropped (FIN or RST) just as it was reused.
                if !timeout && retryOnFreshConnection() { return }
                if timeout {
                    return respond(with: ProxyError(status: 504, kind: .httpResponseTimeout,
                                                    details: "no response from \(upstream.address) within \(settings.responseTimeoutMs / 1000) s"))
                }
                return respond(with: ProxyError(status: 502, kind: .connectionTerminated,
                                                details: "\(upstream.address) \(reason) before sending a complete response head"))
            }
            if case .untilClose = current.responseBody, eof {
                pumpResponseBody()
                exchange?.responseBody = .complete
                return finishExchange()
            }
            exchange?.note = "upstream \(upstream.address) \(reason) mid-response"
            close()
        default:
            exchange?.note = "upstream \(upstream.address) \(reason)"
            close()
        }
    }

    /// The client half-closed and every request it sent has been taken from the buffer.
    var clientHasNoMoreRequests: Bool {
        clientReadClosed && evbuffer_get_length(clientInput) == 0
    }

    /// Stops reading requests, lets the output drain, then lingers (see `lingerMillis`) before freeing.
    func beginClosing() {
        state = .closing
        cancelIdleLimit()
        bufferevent_setwatermark(client, Int16(EV_WRITE), 0, 0)
        if evbuffer_get_length(clientOutput) == 0 { lingerThenClose() }
    }

    func lingerThenClose() {
        guard !clientWriteShut else { return }
        clientWriteShut = true
        if clientReadClosed { return close() }
        shutdown(bufferevent_getfd(client), Int32(SHUT_WR))
        evbuffer_drain(clientInput, evbuffer_get_length(clientInput))
        bufferevent_enable(client, Int16(EV_READ))
        timer.schedule(afterMillis: ClientSession.lingerMillis)
    }

    /// Cancels a lookup or connect in flight and drops the upstream connection (never pooled: its
    /// exchange did not end cleanly).
    private func abandonUpstreamWork() {
        lookup?.cancel()
        lookup = nil
        connector?.cancel()
        connector = nil
        upstream?.close()
        upstream = nil
    }

    /// Frees both connections now; idempotent.
    func close() {
        guard state != .closed else { return }
        collectSpliceCounts()
        if let current = exchange { logExchange(current) }
        exchange = nil
        state = .closed
        timer.cancel()
        abandonUpstreamWork()
        if tunnelCounted {
            tunnelCounted = false
            worker.metrics.update { $0.tunnelsActive -= 1 }
        }
        bufferevent_setcb(client, nil, nil, nil, nil)
        bufferevent_free(client)
        worker.sessionEnded(self)
    }
}

/// How exchanges and connections end: error answers, the next request, EOFs, deadlines, draining,
/// lingering close.
extension SessionMachine {
    /// The client half-closed and every request it sent has been taken from the buffer.
    func clientHasNoMoreRequests(_ levels: BufferLevels) -> Bool {
        clientReadClosed && levels.clientInput == 0
    }

    /// Answers the current request with an error made by the proxy itself. The client connection stays
    /// open only when the request was well framed and fully read.
    mutating func respond(with error: ProxyError, _ levels: BufferLevels, now: Int64,
                          closing: Bool = false) {
        if !state.servesRequest {
            request = .unparsed(at: now)
            record = ExchangeRecord()
        }
        if request.frontEnd == .transparent { return refuseTransparent(error, now: now) }
        if request.frontEnd != .http { return refuseSOCKS(error, levels, now: now) }
        let malformed = closing || (error.kind == .httpRequestError && error.status != 403)
        let bodyComplete = requestBodyComplete
        let persistence = ResponsePersistence.lengthDelimited(
            clientVersion: request.clientVersion, clientKeepAlive: request.keepAlive,
            mustClose: malformed || request.isConnect || !bodyComplete || clientHasNoMoreRequests(levels))
        let answer = error.response(proxyName: rules.proxy.viaName, persistence: persistence,
                                    headOnly: request.methodKind == .head)
        record.status = error.status
        record.note = error.details
        record.bytesToClient += UInt64(answer.count)
        reportError(error)
        sendToClient(answer)
        if state.hasUpstreamWork { actions.append(.abandonUpstream) }
        finish(requestBodyComplete: bodyComplete, closeClientAfter: persistence.closes,
               releasing: nil, levels, now: now, requestMalformed: malformed)
    }

    /// The exchange is complete: log it, release the upstream (`releasing` says whether it may be pooled;
    /// nil when there is none), and read the next request or close.
    /// `requestMalformed`: the request could not be read as sent, so nothing reliable is known of what the
    /// client sends next and a closing connection lingers.
    mutating func finish(requestBodyComplete: Bool, closeClientAfter: Bool,
                         releasing reusable: Bool?, _ levels: BufferLevels, now: Int64,
                         requestMalformed: Bool = false) {
        actions.append(.logExchange)
        if let reusable { actions.append(.releaseUpstream(reusable: reusable)) }
        // While the daemon drains, a finished exchange ends its keep-alive connection.
        if closeClientAfter || clientHasNoMoreRequests(levels) || draining {
            clientAskedToClose = !requestMalformed && !request.keepAlive && !request.isConnect
                && request.frontEnd == .http && requestBodyComplete && levels.clientInput == 0
            beginClosing()
            return
        }
        state = .readingHead
        if !clientReadClosed { actions.append(.resumeReading(.client)) }
        // The timer first fires early, to park the connection if it is still idle then.
        _ = deadline.arm(.clientIdle, millis: rules.proxy.clientIdleTimeoutMs, now: now)
        actions.append(.armTimer(millis: min(SessionRules.parkAfterMillis, rules.proxy.clientIdleTimeoutMs)))
        actions.append(.readNextRequest)
    }

    /// Stops taking requests and lets the output drain; lingering follows.
    mutating func beginClosing() {
        state = .flushing
        actions.append(deadline.cancel())
        actions.append(.flushClient)
    }

    /// Our FIN goes out once everything before it is written; what the client still sends is dropped
    /// for `lingerMillis` rather than answered with a reset that could destroy the answer in flight.
    /// A client that asked to close and has nothing unread is closed at once, as nginx does: it will
    /// send nothing a reset could answer, and waiting for its FIN costs a shutdown, a read and a timer.
    private mutating func linger(_ levels: BufferLevels) {
        guard !clientWriteShut else { return }
        clientWriteShut = true
        if clientReadClosed || (clientAskedToClose && levels.clientInput == 0) { return close() }
        state = .lingering
        actions.append(.shutWrite(.client))
        actions.append(.discardClientInput)
        actions.append(.resumeReading(.client))
        actions.append(.armTimer(millis: SessionRules.lingerMillis))
    }

    /// Frees both connections now, logging the exchange in flight; idempotent.
    public mutating func close() {
        if case .closed = state { return }
        if state.servesRequest { actions.append(.logExchange) }
        state = .closed
        actions.append(.close)
    }

    /// Closes with `note` on the exchange's log line (when there is an exchange).
    mutating func close(note: String) {
        setNote(note, onlyIfEmpty: false)
        return close()
    }

    private mutating func setNote(_ note: String, onlyIfEmpty: Bool) {
        guard state.servesRequest, !onlyIfEmpty || record.note.isEmpty else { return }
        record.note = note
    }

    // MARK: - Events from the sockets and the timer

    /// The client's read side ended: `clean` for a FIN, else an error (`reason` says which). A FIN
    /// ends the client's requests, not its interest in the answers: what is queued or still to come is
    /// delivered before the connection closes.
    public mutating func clientClosed(clean: Bool, reason: String, _ levels: BufferLevels) {
        clientReadClosed = true
        guard clean else {
            setNote("client \(reason) during \(state.phase)", onlyIfEmpty: true)
            return close()
        }
        switch state {
        case .servingPAC, .authenticating, .resolving, .connecting, .closed:
            return
        case .sniffing:
            // Half a conversation cannot be tunnelled: the FIN would have to reach the origin first.
            return close()
        case .socks:
            return actions.append(.readNextRequest)
        case .forwarding:
            return actions.append(.pumpRequestBody)
        case .tunneling(let link, var tracker):
            tracker.sourceClosed(.toUpstream)
            state = .tunneling(link, tracker)
            return actions.append(.relay(from: .client))
        case .readingHead, .parked:
            state = .readingHead
            if levels.clientInput == 0 { return beginClosing() }
            actions.append(.readNextRequest)
        case .flushing, .lingering:
            if levels.clientOutput == 0 { close() }
        }
    }

    /// The upstream's read side ended.
    public mutating func upstreamClosed(_ end: UpstreamEnd, reason: String, _ levels: BufferLevels,
                                        now: Int64) {
        switch state {
        case .tunneling(var link, var tracker):
            link.readClosed = true
            guard end == .eof else {
                state = .tunneling(link, tracker)
                return close(note: "upstream \(record.upstreamAddress) \(reason)")
            }
            tracker.sourceClosed(.toClient)
            state = .tunneling(link, tracker)
            return actions.append(.relay(from: .upstream))
        case .forwarding(var forwarding):
            forwarding.upstream.readClosed = true
            state = .forwarding(forwarding)
            let address = record.upstreamAddress
            switch forwarding.response {
            case .awaitingHead(_, let bytesSeen):
                if end != .timeout && !forwarding.upstream.reused && !bytesSeen {
                    recordHostFailure("\(reason) before any response byte")
                }
                // A pooled connection the server dropped (FIN or RST) just as it was reused is retried once
                // on a fresh one when nothing of the request can have been consumed (RFC 9110 §9.2.2).
                // (There is one only for a reused connection and a request without a body, tried once.)
                if end != .timeout, !bytesSeen, let retry = retryOnFreshConnection {
                    actions.append(.abandonUpstream)
                    beginResolving(retry, now: now)
                    return
                }
                let error = end == .timeout
                    ? ProxyError(status: 504, kind: .httpResponseTimeout,
                                 details: "no response from \(address) within \(rules.proxy.responseTimeoutMs / 1000) s")
                    : ProxyError(status: 502, kind: .connectionTerminated,
                                 details: "\(address) \(reason) before sending a complete response head")
                respond(with: error, levels, now: now)
                return
            case .streamingBody(.untilClose, _, _) where end == .eof:
                return actions.append(.pumpResponseBody)
            case .streamingBody:
                return close(note: "upstream \(address) \(reason) mid-response")
            }
        case .readingHead, .parked, .sniffing, .servingPAC, .socks, .authenticating, .resolving, .connecting, .flushing,
             .lingering, .closed:
            return
        }
    }

    /// A side's output fell to its low-water mark (or emptied): reading that was paused for it resumes.
    public mutating func outputDrained(_ side: SessionSide, _ levels: BufferLevels) {
        switch (state, side) {
        case (.readingHead, .client):
            if !clientReadClosed { actions.append(.resumeReading(.client)) }
            actions.append(.readNextRequest)
        case (.forwarding(let forwarding), .client):
            // A spliced body reads the upstream itself and never queues in the client's output.
            if forwarding.splicingResponseBody { return }
            if !forwarding.upstream.readClosed { actions.append(.resumeReading(.upstream)) }
            if case .streamingBody = forwarding.response {
                actions.append(.pumpResponseBody)
            } else {
                actions.append(.readResponseHead)
            }
            return
        case (.forwarding(let forwarding), .upstream):
            if forwarding.splicingRequestBody { return }
            if !clientReadClosed { actions.append(.resumeReading(.client)) }
            actions.append(.pumpRequestBody)
        case (.tunneling(let link, _), _):
            let partnerClosed = side == .client ? link.readClosed : clientReadClosed
            if !partnerClosed { actions.append(.resumeReading(side == .client ? .upstream : .client)) }
            settleHalfClose(levels)
            return
        case (.flushing, .client):
            // Whether to linger depends on what the kernel still holds unread, counted only now.
            if levels.clientOutput == 0 { actions.append(.countUnreadClientInput) }
        default:
            return
        }
    }

    /// The closing client's answer is out and `unread` bytes it sent wait in the kernel: the connection
    /// closes without lingering only when the client left nothing unread anywhere (a reset for unread
    /// bytes could destroy the answer in flight).
    public mutating func unreadClientInputCounted(_ unread: Int, _ levels: BufferLevels) {
        guard case .flushing = state, levels.clientOutput == 0 else { return }
        var levels = levels
        levels.clientInput += unread
        return linger(levels)
    }

    /// The session's timer fired.
    public mutating func deadlinePassed(_ levels: BufferLevels, now: Int64) {
        switch state {
        case .flushing, .lingering: return close()
        case .closed: return
        default: break
        }
        switch deadline.check(now: now) {
        case .unarmed:
            return
        case .pending(let millis):
            guard mayPark(levels) else {
                // When only an answer still being written is in the way, try again once it may be out rather
                // than holding the buffers for the whole idle window.
                return actions.append(.armTimer(millis: waitsForNextRequest(levels) ? min(SessionRules.parkAfterMillis, millis) : millis))
            }
            state = .parked
            return actions.append(.park(idleMillis: millis))
        case .expired(let reason):
            if reason == .sniff { return sniffTimedOut(now: now) }
            if state.isReadingHead && levels.clientOutput > 0 {
                // Still delivering the last response: not idle. A client that stopped reading meets the
                // write timeout instead.
                return actions.append(deadline.restart(now: now))
            }
            actions.append(.reportTimeout(reason))
            if state.isReadingHead && levels.clientInput > 0 {
                respond(with: ProxyError(status: 408, kind: .httpRequestError,
                                         details: "request head not received within \(rules.proxy.headerTimeoutMs / 1000) s"),
                        levels, now: now)
                return
            }
            close(note: reason.rawValue)
            return
        }
    }

    /// Bytes moved (a tunnel in the kernel, a request body): the idle deadline starts over.
    public mutating func noteActivity(now: Int64) {
        deadline.noteActivity(now: now)
    }

    /// The daemon is stopping: an idle connection closes now; one in flight once its exchange is done.
    public mutating func drainRequested(_ levels: BufferLevels) {
        draining = true
        if isIdleBetweenRequests(levels) { close() }
    }

    /// What the retry on a fresh connection sends: the same head, still in the payloads, and no body (a request
    /// with one is never retried); nil when the request may not be retried.
    var retryOnFreshConnection: OutboundRequest? {
        guard mayRetryOnFreshConnection else { return nil }
        var outbound = OutboundRequest(body: .complete)
        outbound.retriedOnFreshConnection = true
        return outbound
    }
}

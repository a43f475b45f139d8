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
                          closing: Bool = false) -> [SessionAction] {
        if !state.servesRequest {
            request = .unparsed(at: now)
            record = ExchangeRecord()
        }
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
        var actions: [SessionAction] = [.reportError(error, target: request.hostPort), .sendToClient(answer)]
        if state.hasUpstreamWork { actions.append(.abandonUpstream) }
        actions += finish(requestBodyComplete: bodyComplete, closeClientAfter: persistence.closes,
                          releasing: nil, levels, now: now, requestMalformed: malformed)
        return actions
    }

    /// The exchange is complete: log it, release the upstream (`releasing` says whether it may be pooled;
    /// nil when there is none), and read the next request or close.
    /// `requestMalformed`: the request could not be read as sent, so nothing reliable is known of what the
    /// client sends next and a closing connection lingers.
    mutating func finish(requestBodyComplete: Bool, closeClientAfter: Bool,
                         releasing reusable: Bool?, _ levels: BufferLevels, now: Int64,
                         requestMalformed: Bool = false) -> [SessionAction] {
        var actions: [SessionAction] = []
        // One allocation for the whole list: this runs once per request.
        actions.reserveCapacity(5)
        actions.append(.logExchange)
        if let reusable { actions.append(.releaseUpstream(reusable: reusable)) }
        // While the daemon drains, a finished exchange ends its keep-alive connection.
        if closeClientAfter || clientHasNoMoreRequests(levels) || draining {
            clientAskedToClose = !requestMalformed && !request.keepAlive && !request.isConnect
                && request.frontEnd == .http && requestBodyComplete && levels.clientInput == 0
            actions += beginClosing()
            return actions
        }
        state = .readingHead
        if !clientReadClosed { actions.append(.resumeReading(.client)) }
        // The timer first fires early, to park the connection if it is still idle then.
        _ = deadline.arm(.clientIdle, millis: rules.proxy.clientIdleTimeoutMs, now: now)
        actions.append(.armTimer(millis: min(SessionRules.parkAfterMillis, rules.proxy.clientIdleTimeoutMs)))
        actions.append(.readNextRequest)
        return actions
    }

    /// Stops taking requests and lets the output drain; lingering follows.
    mutating func beginClosing() -> [SessionAction] {
        state = .flushing
        return [deadline.cancel(), .flushClient]
    }

    /// Our FIN goes out once everything before it is written; what the client still sends is dropped
    /// for `lingerMillis` rather than answered with a reset that could destroy the answer in flight.
    /// A client that asked to close and has nothing unread is closed at once, as nginx does: it will
    /// send nothing a reset could answer, and waiting for its FIN costs a shutdown, a read and a timer.
    private mutating func linger(_ levels: BufferLevels) -> [SessionAction] {
        guard !clientWriteShut else { return [] }
        clientWriteShut = true
        if clientReadClosed || (clientAskedToClose && levels.clientInput == 0) { return close() }
        state = .lingering
        return [.shutWrite(.client), .discardClientInput, .resumeReading(.client), .armTimer(millis: SessionRules.lingerMillis)]
    }

    /// Frees both connections now, logging the exchange in flight; idempotent.
    public mutating func close() -> [SessionAction] {
        if case .closed = state { return [] }
        var actions: [SessionAction] = []
        if state.servesRequest { actions.append(.logExchange) }
        state = .closed
        actions.append(.close)
        return actions
    }

    /// Closes with `note` on the exchange's log line (when there is an exchange).
    mutating func close(note: String) -> [SessionAction] {
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
    public mutating func clientClosed(clean: Bool, reason: String, _ levels: BufferLevels) -> [SessionAction] {
        clientReadClosed = true
        guard clean else {
            setNote("client \(reason) during \(phase)", onlyIfEmpty: true)
            return close()
        }
        switch state {
        case .servingPAC, .authenticating, .resolving, .connecting, .closed:
            return []
        case .socks:
            return [.readNextRequest]
        case .forwarding:
            return [.pumpRequestBody]
        case .tunneling(let link, var tracker):
            tracker.sourceClosed(.toUpstream)
            state = .tunneling(link, tracker)
            return [.relay(from: .client)]
        case .readingHead, .parked:
            state = .readingHead
            return levels.clientInput == 0 ? beginClosing() : [.readNextRequest]
        case .flushing, .lingering:
            return levels.clientOutput == 0 ? close() : []
        }
    }

    /// The upstream's read side ended.
    public mutating func upstreamClosed(_ end: UpstreamEnd, reason: String, _ levels: BufferLevels,
                                        now: Int64) -> [SessionAction] {
        switch state {
        case .tunneling(var link, var tracker):
            link.readClosed = true
            guard end == .eof else {
                state = .tunneling(link, tracker)
                return close(note: "upstream \(link.address) \(reason)")
            }
            tracker.sourceClosed(.toClient)
            state = .tunneling(link, tracker)
            return [.relay(from: .upstream)]
        case .forwarding(var forwarding):
            forwarding.upstream.readClosed = true
            state = .forwarding(forwarding)
            let address = forwarding.upstream.address
            switch forwarding.response {
            case .awaitingHead(_, let bytesSeen):
                var actions: [SessionAction] = []
                if end != .timeout && !forwarding.upstream.reused && !bytesSeen {
                    actions.append(.recordHostFailure(reason: "\(reason) before any response byte", host: request.hostKey))
                }
                // A pooled connection the server dropped (FIN or RST) just as it was reused is retried once
                // on a fresh one when nothing of the request can have been consumed (RFC 9110 §9.2.2).
                // (`retry` is there only for a reused connection and a request without a body, tried once.)
                if end != .timeout, !bytesSeen, let retry = forwarding.retry {
                    actions.append(.abandonUpstream)
                    actions += beginResolving(retry, now: now)
                    return actions
                }
                let error = end == .timeout
                    ? ProxyError(status: 504, kind: .httpResponseTimeout,
                                 details: "no response from \(address) within \(rules.proxy.responseTimeoutMs / 1000) s")
                    : ProxyError(status: 502, kind: .connectionTerminated,
                                 details: "\(address) \(reason) before sending a complete response head")
                actions += respond(with: error, levels, now: now)
                return actions
            case .streamingBody(.untilClose, _, _) where end == .eof:
                return [.pumpResponseBody]
            case .streamingBody:
                return close(note: "upstream \(address) \(reason) mid-response")
            }
        case .readingHead, .parked, .servingPAC, .socks, .authenticating, .resolving, .connecting, .flushing, .lingering, .closed:
            return []
        }
    }

    /// A side's output fell to its low-water mark (or emptied): reading that was paused for it resumes.
    public mutating func outputDrained(_ side: SessionSide, _ levels: BufferLevels) -> [SessionAction] {
        switch (state, side) {
        case (.readingHead, .client):
            return clientReadClosed ? [.readNextRequest] : [.resumeReading(.client), .readNextRequest]
        case (.forwarding(let forwarding), .client):
            // A spliced body reads the upstream itself and never queues in the client's output.
            if forwarding.splicingResponseBody { return [] }
            var actions: [SessionAction] = forwarding.upstream.readClosed ? [] : [.resumeReading(.upstream)]
            if case .streamingBody = forwarding.response {
                actions.append(.pumpResponseBody)
            } else {
                actions.append(.readResponseHead)
            }
            return actions
        case (.forwarding(let forwarding), .upstream):
            if forwarding.splicingRequestBody { return [] }
            return clientReadClosed ? [.pumpRequestBody] : [.resumeReading(.client), .pumpRequestBody]
        case (.tunneling(let link, _), _):
            let partnerClosed = side == .client ? link.readClosed : clientReadClosed
            var actions: [SessionAction] = partnerClosed ? [] : [.resumeReading(side == .client ? .upstream : .client)]
            actions += settleHalfClose(levels)
            return actions
        case (.flushing, .client):
            // Whether to linger depends on what the kernel still holds unread, counted only now.
            return levels.clientOutput == 0 ? [.countUnreadClientInput] : []
        default:
            return []
        }
    }

    /// The closing client's answer is out and `unread` bytes it sent wait in the kernel: the connection
    /// closes without lingering only when the client left nothing unread anywhere (a reset for unread
    /// bytes could destroy the answer in flight).
    public mutating func unreadClientInputCounted(_ unread: Int, _ levels: BufferLevels) -> [SessionAction] {
        guard case .flushing = state, levels.clientOutput == 0 else { return [] }
        var levels = levels
        levels.clientInput += unread
        return linger(levels)
    }

    /// The session's timer fired.
    public mutating func deadlinePassed(_ levels: BufferLevels, now: Int64) -> [SessionAction] {
        switch state {
        case .flushing, .lingering: return close()
        case .closed: return []
        default: break
        }
        switch deadline.check(now: now) {
        case .unarmed:
            return []
        case .pending(let millis):
            guard mayPark(levels) else {
                // When only an answer still being written is in the way, try again once it may be out rather
                // than holding the buffers for the whole idle window.
                return [.armTimer(millis: waitsForNextRequest(levels) ? min(SessionRules.parkAfterMillis, millis) : millis)]
            }
            state = .parked
            return [.park(idleMillis: millis)]
        case .expired(let reason):
            if state.isReadingHead && levels.clientOutput > 0 {
                // Still delivering the last response: not idle. A client that stopped reading meets the
                // write timeout instead.
                return [deadline.restart(now: now)]
            }
            var actions: [SessionAction] = [.reportTimeout(reason)]
            if state.isReadingHead && levels.clientInput > 0 {
                actions += respond(with: ProxyError(status: 408, kind: .httpRequestError,
                                                    details: "request head not received within \(rules.proxy.headerTimeoutMs / 1000) s"),
                                   levels, now: now)
                return actions
            }
            actions += close(note: reason.rawValue)
            return actions
        }
    }

    /// Bytes moved (a tunnel in the kernel, a request body): the idle deadline starts over.
    public mutating func noteActivity(now: Int64) {
        deadline.noteActivity(now: now)
    }

    /// The daemon is stopping: an idle connection closes now; one in flight once its exchange is done.
    public mutating func drainRequested(_ levels: BufferLevels) -> [SessionAction] {
        draining = true
        return isIdleBetweenRequests(levels) ? close() : []
    }
}

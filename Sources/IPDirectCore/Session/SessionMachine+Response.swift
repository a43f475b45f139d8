/// Response heads and bodies coming back from the upstream.
extension SessionMachine {
    /// Response bytes arrived that do not yet make a whole head.
    public mutating func responseHeadIncomplete() {
        guard case .forwarding(var forwarding) = state,
              case .awaitingHead(let interim, false) = forwarding.response else { return }
        forwarding.response = .awaitingHead(interim: interim, bytesSeen: true)
        state = .forwarding(forwarding)
    }

    /// The upstream sent something that is not a response head.
    public mutating func responseHeadInvalid(_ failure: HTTPParseError, _ levels: BufferLevels, now: Int64) {
        guard case .forwarding(let forwarding) = state, case .awaitingHead = forwarding.response else { return }
        return respond(with: ProxyError(status: 502, kind: .httpProtocolError,
                                        details: "invalid response from \(record.upstreamAddress): \(failure.reason)"),
                       levels, now: now)
    }

    /// A complete response head, parsed from `bytes` (which the driver drops from the upstream's input
    /// once this returns): an interim one passes on, a final one starts the body, a 101 a tunnel.
    public mutating func responseHeadReceived(_ head: ResponseHead, in bytes: UnsafeRawBufferPointer,
                                              _ levels: BufferLevels, now: Int64) {
        guard var forwarding = state.takeForwarding() else { return }
        guard case .awaitingHead(let interim, _) = forwarding.response else {
            state = .forwarding(forwarding)
            return
        }
        forwarding.response = .awaitingHead(interim: interim, bytesSeen: true)
        // A response byte has come: the request is no longer retried.
        mayRetryOnFreshConnection = false
        if forwarding.firstByteWanted, let sent = record.requestSentMicros {
            forwarding.firstByteWanted = false
            actions.append(.recordFirstByte(micros: now - sent))
        }
        let address = record.upstreamAddress
        if head.status == 101 {
            guard request.upgradeRequested else {
                state = .forwarding(forwarding)
                respond(with: ProxyError(status: 502, kind: .httpProtocolError,
                                         details: "\(address) switched protocols without an Upgrade request"),
                        levels, now: now)
                return
            }
            let rewritten = HeadRewriter.clientResponse(head, in: bytes, viaName: rules.proxy.viaName,
                                                        keepUpgrade: true, persistence: .persistent)
            record.status = 101
            record.firstByteMicros = now - request.startMicros
            record.bytesToClient += UInt64(rewritten.count)
            sendToClient(rewritten)
            beginTunnel(forwarding.upstream, now: now)
            return
        }
        if head.status < 200 {
            let count = interim + 1
            forwarding.response = .awaitingHead(interim: count, bytesSeen: true)
            state = .forwarding(forwarding)
            guard count <= SessionRules.maxInterimResponses else {
                respond(with: ProxyError(status: 502, kind: .httpProtocolError,
                                         details: "\(address) sent more than \(SessionRules.maxInterimResponses) interim responses"),
                        levels, now: now)
                return
            }
            // Interim responses (100 Continue, 103 Early Hints) pass on and the final one follows; HTTP/1.0
            // has none, so its clients are not sent any (RFC 9110 §15.2).
            if request.clientVersion == .http11 {
                let rewritten = HeadRewriter.clientResponse(head, in: bytes, viaName: rules.proxy.viaName,
                                                            keepUpgrade: false, persistence: .persistent)
                record.bytesToClient += UInt64(rewritten.count)
                state = .forwarding(forwarding)
                sendToClient(rewritten)
            }
            return
        }
        let persistence = ResponsePersistence(
            clientVersion: request.clientVersion, clientKeepAlive: request.keepAlive, framing: head.framing,
            mustClose: !head.keepAlive || !forwarding.requestBody.isComplete || clientHasNoMoreRequests(levels))
        HeadRewriter.clientResponse(head, in: bytes, viaName: rules.proxy.viaName, keepUpgrade: false,
                                    persistence: persistence, into: &payloads.responseHead)
        record.status = head.status
        record.firstByteMicros = now - request.startMicros
        record.bytesToClient += UInt64(payloads.responseHead.count)
        forwarding.response = .streamingBody(BodyProgress(head.framing), closeClientAfter: persistence.closes,
                                             upstreamKeepAlive: head.keepAlive && head.framing != .untilClose)
        state = .forwarding(forwarding)
        actions.append(.forwardResponse)
    }

    /// The driver moved response body bytes to the client; `progress` is where the body stands now.
    public mutating func responseBodyPumped(_ progress: BodyProgress, moved: UInt64, failure: HTTPParseError?,
                                            _ levels: BufferLevels, now: Int64) {
        guard var forwarding = state.takeForwarding() else { return }
        guard case .streamingBody(_, let closeClientAfter, let upstreamKeepAlive) = forwarding.response else {
            state = .forwarding(forwarding)
            return
        }
        record.bytesToClient += moved
        var progress = progress
        if case .untilClose = progress, forwarding.upstream.readClosed, levels.upstreamInput == 0 {
            // RFC 9112 §6.3 rule 8: the server's FIN ends this body.
            progress = .complete
        }
        forwarding.response = .streamingBody(progress, closeClientAfter: closeClientAfter, upstreamKeepAlive: upstreamKeepAlive)
        state = .forwarding(forwarding)
        if let failure {
            return close(note: "invalid response body framing: \(failure.reason)")
        }
        if progress.isComplete {
            let requestBodyComplete = forwarding.requestBody.isComplete
            let reusable = upstreamKeepAlive && requestBodyComplete && !forwarding.upstream.readClosed
                && levels.upstreamInput == 0
            return finish(requestBodyComplete: requestBodyComplete, closeClientAfter: closeClientAfter,
                          releasing: reusable, levels, now: now)
        }
        if forwarding.splicingResponseBody { return }
        if let splice = bodySplice(from: .upstream, progress, forwarding.upstream, levels) {
            forwarding.splicingResponseBody = true
            state = .forwarding(forwarding)
            return actions.append(splice)
        }
        if levels.clientOutput >= SessionRules.outputHighWater { return actions.append(.pauseReading(.upstream)) }
    }

    /// Broken chunked framing: answered while no response has started, else the connection is cut.
    mutating func failInvalidBody(_ failure: HTTPParseError, fromClient: Bool, _ levels: BufferLevels, now: Int64) {
        if case .forwarding(let forwarding) = state, case .streamingBody = forwarding.response {
            return close(note: "invalid \(fromClient ? "request" : "response") body framing: \(failure.reason)")
        }
        return respond(with: fromClient ? .badRequest(failure)
                           : ProxyError(status: 502, kind: .httpProtocolError, details: "invalid response body framing: \(failure.reason)"),
                       levels, now: now)
    }
}

import CEvent
import IPDirectCore

/// Bodies the machine hands to the kernel: socket to pipe to socket with a `SpliceStream`, while the
/// source's bufferevent stops reading, and the stream's progress and end reported as the same events
/// a buffered body would cause.
extension ClientSession {
    func spliceBody(from side: SessionSide, limit: UInt64?) {
        guard let upstream else { return }
        let fromClient = side == .client
        onSocket(side) { $0.pauseReading() }
        let clientFD = client.fd
        let upstreamFD = upstream.socket.fd
        // The bufferevents' own timeouts stop with their reading: a response body keeps the response
        // timeout for the server's silence and the client's idle timeout for a client that stops reading.
        let stream = SpliceStream(base: worker.base, pool: worker.pipes, metrics: worker.metrics,
                                  from: fromClient ? clientFD : upstreamFD, to: fromClient ? upstreamFD : clientFD,
                                  limit: limit, readTimeoutMillis: fromClient ? nil : configuration.rules.proxy.responseTimeoutMs,
                                  writeTimeoutMillis: fromClient ? nil : configuration.rules.proxy.clientIdleTimeoutMs)
        stream.onProgress = { [unowned self] moved, end in bodySpliced(from: side, moved: moved, end: end) }
        if fromClient { requestSplice = stream } else { responseSplice = stream }
        stream.start()
    }

    /// Stops the body splices (the upstream connection is leaving the session).
    func stopBodySplices() {
        requestSplice?.close()
        requestSplice = nil
        responseSplice?.close()
        responseSplice = nil
    }

    private func bodySpliced(from side: SessionSide, moved: Int, end: SpliceStream.End?) {
        let fromClient = side == .client
        if end != nil {
            if fromClient { requestSplice = nil } else { responseSplice = nil }
            if end == .limitReached {
                // The body is through: what follows on this socket (the next request, or the server's
                // next response) is read into the buffers again.
                onSocket(side) { $0.resumeReading() }
            }
        }
        let now = clock.nowMicros
        if moved > 0 || end == .limitReached {
            if fromClient {
                perform(machine.requestBodyPumped(machine.requestBody.afterPassing(UInt64(moved)), moved: UInt64(moved),
                                                  failure: nil, levels, now: now))
            } else {
                perform(machine.responseBodyPumped((machine.responseBody ?? .complete).afterPassing(UInt64(moved)), moved: UInt64(moved),
                                                   failure: nil, levels, now: now))
            }
        }
        guard let end, !isClosed else { return }
        switch end {
        case .limitReached:
            return
        case .sourceClosed:
            if fromClient {
                perform(machine.clientClosed(clean: true, reason: "closed", levels))
            } else {
                perform(machine.upstreamClosed(.eof, reason: "closed", levels, now: now))
            }
        case .failed(let socket, let reason, let timedOut):
            if (socket == .source) == fromClient {
                perform(machine.clientClosed(clean: false, reason: reason, levels))
            } else {
                perform(machine.upstreamClosed(timedOut ? .timeout : .error, reason: reason, levels, now: now))
            }
        }
    }
}

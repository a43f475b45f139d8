import CEvent
import IPDirectCore

/// Finding request and response heads in the buffers and handing them to the machine.
extension ClientSession {
    /// Bytes pulled up at once to parse chunked framing: enough for the scanner to see past its own
    /// limits (a chunk-size line, or a whole trailer section) and refuse, rather than wait forever.
    static let controlPeekBytes = ChunkedBodyScanner.defaultMaxTrailerBytes + ChunkedBodyScanner.defaultMaxControlBytes + 2

    /// Parses as many complete request heads (or SOCKS messages) as are buffered, one exchange at a time.
    func parseClientInput() {
        guard !parsingInput else { return }
        parsingInput = true
        defer { parsingInput = false }
        while !isClosed {
            switch machine.bytesArrived(from: .client) {
            case .readSOCKSMessage?:
                guard readSOCKSInput() else { return }
            case .readNextRequest?:
                guard readRequestHead() else { return }
            default:
                return
            }
        }
    }

    /// Hands the next buffered request head (or the first byte of a SOCKS greeting) to the machine;
    /// false when nothing more can be read now.
    private func readRequestHead() -> Bool {
        // Answers the proxy makes itself must not pile up behind a client that does not read them.
        if client.outputLength >= SessionRules.outputHighWater {
            client.pauseReading()
            return false
        }
        let length = ipd_evbuffer_length(clientInput)
        let now = clock.nowMicros
        guard length > 0 else {
            perform(machine.headIncomplete(levels, now: now))
            return false
        }
        if machine.mayStartSOCKS, let first = evbuffer_pullup(clientInput, 1)?.pointee, SessionMachine.isSOCKSVersion(first) {
            perform(machine.socksStarted(version: first, now: now))
            return true
        }
        perform(machine.requestBegan(now: now))
        let limits = headLimits
        let peek = min(length, limits.maxHeadBytes + 1)
        guard hasNewLine(within: peek) || peek > limits.maxHeadBytes else {
            perform(machine.headIncomplete(levels, now: now))
            return false
        }
        guard let start = evbuffer_pullup(clientInput, peek) else { return false }
        let parsed = withWorker { worker in
            RequestHeadParser.parse(UnsafeRawBufferPointer(start: start, count: peek), limits: limits,
                                    fieldStorage: &worker.headFields)
        }
        switch consume parsed {
        case .incomplete:
            headBytesWithoutNewline = peek
            perform(machine.headIncomplete(levels, now: now))
            return false
        case .invalid(let failure):
            perform(machine.headInvalid(failure, levels, now: now))
        case .complete(let head):
            headBytesWithoutNewline = 0
            let bodyFailure = invalidBufferedChunkedBody(of: head)
            // Checking the body may have moved the buffer: the head is taken where it lies now.
            guard let headStart = evbuffer_pullup(clientInput, head.headLength) else { return false }
            var after = levels
            after.clientInput -= head.headLength
            machine.headReceived(head, in: UnsafeRawBufferPointer(start: headStart, count: head.headLength),
                                 bufferedBodyFailure: bodyFailure, after, now: now)
            evbuffer_drain(clientInput, head.headLength)
            performQueuedActions()
        }
        return true
    }

    private func hasNewLine(within count: Int) -> Bool {
        guard count > headBytesWithoutNewline else { return false }
        var from = evbuffer_ptr()
        guard evbuffer_ptr_set(clientInput, &from, headBytesWithoutNewline, EVBUFFER_PTR_SET) == 0 else { return true }
        let found = evbuffer_search_range(clientInput, "\n", 1, &from, nil)
        if found.pos >= 0 && found.pos < count { return true }
        headBytesWithoutNewline = count
        return false
    }

    /// Checks the chunked framing of the body bytes that arrived with the head, so that a request
    /// whose framing is already known to be broken never causes an upstream connection.
    private func invalidBufferedChunkedBody(of head: RequestHead) -> HTTPParseError? {
        guard case .chunked = head.framing else { return nil }
        let length = min(ipd_evbuffer_length(clientInput) - head.headLength, ClientSession.inputHighWater)
        guard length > 0, let start = evbuffer_pullup(clientInput, head.headLength + length) else { return nil }
        var scanner = ChunkedBodyScanner()
        if case .invalid(let failure) = scanner.walk(UnsafeRawBufferPointer(start: start + head.headLength, count: length)).end {
            return failure
        }
        return nil
    }

    /// Reads interim and final response heads from the upstream and hands them to the machine.
    func parseResponseHeads() {
        while !isClosed, let input = withUpstream({ $0.socket.input }),
              case .readResponseHead? = machine.bytesArrived(from: .upstream) {
            let length = ipd_evbuffer_length(input)
            guard length > 0 else { return }
            let limits = headLimits
            let peek = min(length, limits.maxHeadBytes + 1)
            guard let start = evbuffer_pullup(input, peek) else { return }
            let bytes = UnsafeRawBufferPointer(start: start, count: peek)
            let now = clock.nowMicros
            let requestMethod = machine.requestMethod
            let parsed = withWorker { worker in
                ResponseHeadParser.parse(bytes, requestMethod: requestMethod, limits: limits, fieldStorage: &worker.headFields)
            }
            switch consume parsed {
            case .incomplete:
                return perform(machine.responseHeadIncomplete())
            case .invalid(let failure):
                return perform(machine.responseHeadInvalid(failure, levels, now: now))
            case .complete(let head):
                machine.responseHeadReceived(head, in: bytes, levels, now: now)
                evbuffer_drain(input, head.headLength)
                performQueuedActions()
            }
        }
    }
}

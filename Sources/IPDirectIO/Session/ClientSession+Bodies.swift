import CEvent
import IPDirectCore

/// Streaming request and response bodies between the two bufferevents; the machine is told how far
/// each body got.
extension ClientSession {
    /// Moves request body bytes to the upstream (after the request head, when it is still to go).
    func pumpRequestBody() {
        var progress = machine.requestBody
        let source = clientInput
        guard let moved = withUpstream({ upstream in
            var head = takePending(&pendingUpstreamHead)
            let moved = pump(&progress, from: source, to: upstream.socket, after: &head)
            if !head.isEmpty { head.withUnsafeBytes { ByteTransfer.send($0, to: upstream.socket) } }
            return moved
        }) else { return }
        perform(machine.requestBodyPumped(progress, moved: moved.bytes, failure: moved.failure, levels,
                                          now: clock.nowMicros))
    }

    /// Moves response body bytes to the client (after the response head, when it is still to go).
    func pumpResponseBody() {
        guard let source = withUpstream({ $0.socket.input }), var progress = machine.responseBody else { return }
        var head = takePending(&pendingClientHead)
        let moved = pump(&progress, from: source, to: client, after: &head)
        if !head.isEmpty { head.withUnsafeBytes { ByteTransfer.send($0, to: client) } }
        perform(machine.responseBodyPumped(progress, moved: moved.bytes, failure: moved.failure, levels,
                                           now: clock.nowMicros))
    }

    /// The head waiting to go, moved out of the session (which then holds none): reading it in place would
    /// retain and release its storage once more.
    private func takePending(_ pending: inout HeadBuffer) -> HeadBuffer {
        var head = HeadBuffer()
        swap(&head, &pending)
        return head
    }

    /// One step of the chunk walk over `source`: framing is read where the bytes lie, in the buffer's first
    /// segment; only an element split across segments is first made contiguous (a copy of at most
    /// `controlPeekBytes`).
    private static func advance(_ scanner: inout ChunkedBodyScanner, over source: OpaquePointer,
                                buffered: Int) -> ChunkedBodyScanner.Advance {
        var front = UnsafeRawBufferPointer(start: nil, count: 0)
        var first = iovec()
        if scanner.readsFraming, evbuffer_peek(source, -1, nil, &first, 1) > 0, let base = first.iov_base {
            front = UnsafeRawBufferPointer(start: base, count: first.iov_len)
        }
        let advance = scanner.advance(front: front, buffered: buffered)
        guard advance == .needContiguous else { return advance }
        let peek = min(buffered, ClientSession.controlPeekBytes)
        guard let start = evbuffer_pullup(source, peek) else { return .needMore }
        return scanner.advance(front: UnsafeRawBufferPointer(start: start, count: peek), buffered: peek)
    }

    /// Moves what `progress` allows from `source` to the `destination` connection.
    /// `head`, when not empty, is sent in the same write as the first bytes moved.
    private func pump(_ progress: inout BodyProgress, from source: OpaquePointer, to destination: borrowing BufferedSocket,
                      after head: inout HeadBuffer) -> (bytes: UInt64, failure: HTTPParseError?) {
        func move(limit: Int? = nil) -> Int {
            ByteTransfer.move(from: source, to: destination, limit: limit, after: &head)
        }
        var total: UInt64 = 0
        while true {
            let available = ipd_evbuffer_length(source)
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
                let advance = ClientSession.advance(&scanner, over: source, buffered: available)
                progress = .chunked(scanner)
                switch advance {
                case .data(let count), .framing(let count):
                    total += UInt64(move(limit: count))
                case .finished(let count):
                    total += UInt64(move(limit: count))
                    progress = .complete
                case .needMore, .needContiguous:
                    return (total, nil)
                case .invalid(let failure):
                    return (total, failure)
                }
            }
        }
    }
}

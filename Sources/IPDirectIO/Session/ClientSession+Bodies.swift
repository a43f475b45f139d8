import CEvent
import IPDirectCore

/// Streaming request and response bodies between the two bufferevents; the machine is told how far
/// each body got.
extension ClientSession {
    /// Moves request body bytes to the upstream (after the request head, when it is still to go).
    func pumpRequestBody() {
        guard let upstream else { return }
        var progress = machine.requestBody
        let moved = pump(&progress, from: clientInput, to: upstream.bev, after: &pendingUpstreamHead)
        if !pendingUpstreamHead.isEmpty {
            ByteTransfer.send(pendingUpstreamHead, to: upstream.bev)
            pendingUpstreamHead = []
        }
        perform(machine.requestBodyPumped(progress, moved: moved.bytes, failure: moved.failure, levels,
                                          now: MonotonicClock.nowMicros()))
    }

    /// Moves response body bytes to the client (after the response head, when it is still to go).
    func pumpResponseBody() {
        guard let upstream, var progress = machine.responseBody else { return }
        let moved = pump(&progress, from: upstream.input, to: client, after: &pendingClientHead)
        if !pendingClientHead.isEmpty {
            ByteTransfer.send(pendingClientHead, to: client)
            pendingClientHead = []
        }
        perform(machine.responseBodyPumped(progress, moved: moved.bytes, failure: moved.failure, levels,
                                           now: MonotonicClock.nowMicros()))
    }

    /// Scans the chunk-size line, chunk end or trailers at the front of `source` where the bytes lie, in
    /// the buffer's first segment; only an element split across segments is first made contiguous (a copy
    /// of at most `controlPeekBytes`).
    private static func scanControl(_ scanner: inout ChunkedBodyScanner, in source: OpaquePointer,
                                    available: Int) -> ChunkedBodyScanner.ControlResult? {
        var first = iovec()
        if evbuffer_peek(source, -1, nil, &first, 1) > 0, let base = first.iov_base {
            var inPlace = scanner
            let result = inPlace.scanControl(UnsafeRawBufferPointer(start: base, count: first.iov_len))
            if case .incomplete = result, first.iov_len < available {
                // Split across segments: scanned again below, from the same state, once contiguous.
            } else {
                scanner = inPlace
                return result
            }
        }
        let peek = min(available, ClientSession.controlPeekBytes)
        guard let start = evbuffer_pullup(source, peek) else { return nil }
        return scanner.scanControl(UnsafeRawBufferPointer(start: start, count: peek))
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
                    guard let result = ClientSession.scanControl(&scanner, in: source, available: available) else {
                        return (total, nil)
                    }
                    switch result {
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
}

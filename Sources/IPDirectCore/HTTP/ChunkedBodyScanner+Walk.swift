/// The chunk walk: `advance`, the one step of `step`, `didPassData` and `scanControl` that every reader of
/// a chunked body takes (the proxy's body pump over buffer segments, its check of a body that arrived with
/// its head, the HTTPDNS client's response reader), and `walk`, its loop over bytes held in memory.
extension ChunkedBodyScanner {
    /// Why a walk stopped.
    public enum WalkEnd: Sendable, Equatable {
        /// Every byte given was walked (a control element cut short at the end is left unwalked).
        case needMore
        /// The last chunk and the trailer section ended the body.
        case finished
        case invalid(HTTPParseError)
    }

    /// What the bytes at the front of a chunked body are, decided by `advance`.
    public enum Advance: Sendable, Equatable {
        /// This many bytes of chunk data pass on.
        case data(Int)
        /// This many bytes of framing (size lines, chunk ends) pass on; chunk data follows, or more bytes are needed.
        case framing(Int)
        /// The body ends after this many bytes of framing (the last chunk and the trailer section).
        case finished(Int)
        /// Nothing can be decided until more bytes arrive.
        case needMore
        /// A framing element runs past `front` while more is buffered: ask again with the bytes made
        /// contiguous. The scanner did not move.
        case needContiguous
        case invalid(HTTPParseError)
    }

    /// Whether the next step reads framing, so that `advance` needs the bytes at the front (chunk data needs
    /// only their count).
    public var readsFraming: Bool { step == .needControl }

    /// The one step of every chunk walk: `buffered` bytes of the body are at hand from the scanner's position
    /// on, the first of them contiguous in `front` (read only when `readsFraming`). The scanner moves past
    /// what the answer passes on, so the caller must pass on exactly that many bytes.
    public mutating func advance(front: UnsafeRawBufferPointer, buffered: Int) -> Advance {
        switch step {
        case .passData(let remaining):
            let count = Int(min(remaining, UInt64(buffered)))
            guard count > 0 else { return .needMore }
            didPassData(UInt64(count))
            return .data(count)
        case .needControl:
            var scanned = self
            switch scanned.scanControl(front) {
            case .incomplete:
                if front.count < buffered { return .needContiguous }
                self = scanned
                return .needMore
            case .consumed(let count):
                self = scanned
                return count > 0 ? .framing(count) : .needMore
            case .finished(let count):
                self = scanned
                return .finished(count)
            case .invalid(let failure):
                self = scanned
                return .invalid(failure)
            }
        }
    }

    /// Walks `bytes`, the body's bytes from the scanner's position on: each run of chunk data is handed to
    /// `data` as an offset range of `bytes`, and framing is consumed. Returns how many bytes were walked (at
    /// `.finished`, where the body ends) and why the walk stopped.
    public mutating func walk(_ bytes: UnsafeRawBufferPointer,
                              data: (Range<Int>) -> Void = { _ in }) -> (walked: Int, end: WalkEnd) {
        var offset = 0
        while true {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            switch advance(front: rest, buffered: rest.count) {
            case .data(let count):
                data(offset..<(offset + count))
                offset += count
            case .framing(let count): offset += count
            case .finished(let count): return (offset + count, .finished)
            case .needMore, .needContiguous: return (offset, .needMore)
            case .invalid(let failure): return (offset, .invalid(failure))
            }
        }
    }
}

/// The chunk walk over bytes that lie together in memory: the one loop of `step`, `didPassData` and
/// `scanControl` that every reader of a chunked body held in memory runs (the proxy's check of a body
/// that arrived with its head, the HTTPDNS client's response reader).
extension ChunkedBodyScanner {
    /// Why a walk stopped.
    public enum WalkEnd: Sendable, Equatable {
        /// Every byte given was walked (a control element cut short at the end is left unwalked).
        case needMore
        /// The last chunk and the trailer section ended the body.
        case finished
        case invalid(HTTPParseError)
    }

    /// Walks `bytes`, the body's bytes from the scanner's position on: each run of chunk data is handed to
    /// `data` as an offset range of `bytes`, and framing is consumed. Returns how many bytes were walked (at
    /// `.finished`, where the body ends) and why the walk stopped.
    public mutating func walk(_ bytes: UnsafeRawBufferPointer,
                              data: (Range<Int>) -> Void = { _ in }) -> (walked: Int, end: WalkEnd) {
        var offset = 0
        while true {
            switch step {
            case .passData(let remaining):
                let count = Int(min(remaining, UInt64(bytes.count - offset)))
                guard count > 0 else { return (offset, .needMore) }
                data(offset..<(offset + count))
                didPassData(UInt64(count))
                offset += count
            case .needControl:
                switch scanControl(UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
                case .incomplete: return (offset, .needMore)
                case .consumed(let count): offset += count
                case .finished(let count): return (offset + count, .finished)
                case .invalid(let failure): return (offset, .invalid(failure))
                }
            }
        }
    }
}

/// Progress through one message body. Bodies stream through without entering Swift; this only
/// tracks how many bytes may still pass and when the message ends.
public enum BodyProgress: Sendable, Equatable {
    /// Nothing (more) to forward.
    case complete
    /// A Content-Length body with this many bytes still to pass.
    case remaining(UInt64)
    /// A chunked body, forwarded with its framing; the scanner finds the end.
    case chunked(ChunkedBodyScanner)
    /// A response delimited by the server closing the connection (RFC 9112 §6.3 rule 8).
    case untilClose

    public init(_ framing: RequestBodyFraming) {
        switch framing {
        case .none, .contentLength(0): self = .complete
        case .contentLength(let length): self = .remaining(length)
        case .chunked: self = .chunked(ChunkedBodyScanner())
        }
    }

    public init(_ framing: ResponseBodyFraming) {
        switch framing {
        case .none, .contentLength(0): self = .complete
        case .contentLength(let length): self = .remaining(length)
        case .chunked: self = .chunked(ChunkedBodyScanner())
        case .untilClose: self = .untilClose
        }
    }

    /// Where a Content-Length or close-delimited body stands once `bytes` more of it passed without
    /// being scanned (a splice); a chunked body is never passed that way.
    public func afterPassing(_ bytes: UInt64) -> BodyProgress {
        guard case .remaining(let left) = self else { return self }
        return left > bytes ? .remaining(left - bytes) : .complete
    }

    public var isComplete: Bool {
        if case .complete = self { return true }
        return false
    }
}

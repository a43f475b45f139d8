/// Incremental chunked-body scanner (RFC 9112 §7.1). The proxy forwards chunked bodies VERBATIM (framing included);
/// the scanner only tells it how many bytes it may pass on and when the body ends. Chunk data bytes are never
/// inspected: the proxy moves them between evbuffers without copying them into Swift.
///
/// Use: while `step` is `.passData(n)`, forward up to n bytes and report them with `didPassData`. When it is
/// `.needControl`, call `scanControl` with all unforwarded bytes; forward what it consumed. `.incomplete`
/// means: read more, then call again with the same bytes plus the new ones.
public struct ChunkedBodyScanner: Sendable, Equatable {
    public enum Step: Sendable, Equatable {
        /// Forward up to this many bytes blindly, then report them with didPassData.
        case passData(UInt64)
        /// Call scanControl with the bytes at the current position.
        case needControl
    }

    public enum ControlResult: Sendable, Equatable {
        /// Need more bytes (fail with invalid if already over the control/trailer limit).
        case incomplete
        /// Forward exactly this many bytes; then consult `step` again.
        case consumed(Int)
        /// Forward exactly this many bytes; the body (incl. trailers and final CRLF) is complete.
        case finished(Int)
        case invalid(HTTPParseError)
    }

    private enum State: Sendable, Equatable {
        /// Waiting for a chunk-size line; goes to `data`, or to `trailers` after the last chunk.
        case sizeLine
        /// Passing chunk data; goes to `dataEnd` when none remains.
        case data(remaining: UInt64)
        /// Waiting for the CRLF that ends chunk data; goes to `sizeLine`.
        case dataEnd
        /// Reading the trailer section, `seen` bytes of it so far; goes to `finished` at the empty line.
        case trailers(seen: Int)
        /// The body is complete; nothing more belongs to it.
        case finished
        /// The body was refused; every further call repeats the error.
        case failed(Refusal)
    }

    /// Why the body was refused. A plain value rather than the error's text: a scanner lives in the body
    /// progress of every chunked exchange, which is copied at every event, and a String in it would make
    /// each copy count references.
    private enum Refusal: Sendable, Equatable {
        case framing(StaticString)
        case trailer(HeadScanner.Failure)

        var error: HTTPParseError {
            switch self {
            case .framing(let reason): return .badRequest("chunked body: \(reason)")
            case .trailer(let failure): return .badRequest("chunked body: trailer: \(failure)")
            }
        }

        static func == (left: Refusal, right: Refusal) -> Bool { left.error == right.error }
    }

    private let maxControlBytes: Int
    private let maxTrailerBytes: Int
    private var state = State.sizeLine

    /// A size line is a few bytes; extensions are rare and short in practice.
    public static let defaultMaxControlBytes = 4096
    /// Trailers are rare; 16 KiB is half of what a whole head may take.
    public static let defaultMaxTrailerBytes = 16 * 1024
    /// A chunk size is at most 16 hex digits, which is exactly what fits in UInt64.
    static let maxSizeDigits = 16
    /// Bits per hex digit.
    private static let bitsPerHexDigit: UInt64 = 4

    /// - Parameters:
    ///   - maxControlBytes: longest chunk-size line, extensions and CRLF included.
    ///   - maxTrailerBytes: longest trailer section, final CRLF included.
    public init(maxControlBytes: Int = defaultMaxControlBytes, maxTrailerBytes: Int = defaultMaxTrailerBytes) {
        self.maxControlBytes = maxControlBytes
        self.maxTrailerBytes = maxTrailerBytes
    }

    public var step: Step {
        if case .data(let remaining) = state { return .passData(remaining) }
        return .needControl
    }

    /// Whether the whole body, trailers and final CRLF included, has been consumed.
    public var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// Reports `count` chunk data bytes forwarded; `count` must not exceed what `step` allowed.
    public mutating func didPassData(_ count: UInt64) {
        guard case .data(let remaining) = state, count <= remaining else {
            preconditionFailure("didPassData(\(count)) beyond the chunk data announced by step")
        }
        state = count == remaining ? .dataEnd : .data(remaining: remaining - count)
    }

    /// Control = a chunk-size line (hex, optional ";ext" with token/quoted-string values), the CRLF after chunk data,
    /// or the trailer section after the last chunk. Bare LF, bare CR, overflow (> 16 hex digits or > UInt64),
    /// signs, spaces before the size, empty size: invalid.
    ///
    /// Consumes every complete control element at the start of `bytes`, stopping where chunk data begins
    /// or the body ends. While `step` is `.passData` there is nothing to scan and the result is `.consumed(0)`.
    public mutating func scanControl(_ bytes: UnsafeRawBufferPointer) -> ControlResult {
        var offset = 0
        while true {
            switch state {
            case .data:
                return .consumed(offset)
            case .finished:
                return .finished(offset)
            case .failed(let refusal):
                return .invalid(refusal.error)
            case .sizeLine:
                switch scanSizeLine(bytes, from: offset) {
                case .line(let length, let size):
                    offset += length
                    state = size == 0 ? .trailers(seen: 0) : .data(remaining: size)
                case .incomplete:
                    return offset > 0 ? .consumed(offset) : .incomplete
                case .invalid(let reason):
                    return fail(.framing(reason))
                }
            case .dataEnd:
                let available = bytes.count - offset
                if available >= 1, bytes[offset] != HTTPByte.cr { return fail(.framing("missing CRLF after chunk data")) }
                if available < HTTPByte.crlfLength { return offset > 0 ? .consumed(offset) : .incomplete }
                guard bytes[offset + 1] == HTTPByte.lf else { return fail(.framing("bare CR after chunk data")) }
                offset += HTTPByte.crlfLength
                state = .sizeLine
            case .trailers(let seen):
                let end = min(bytes.count, offset + maxTrailerBytes - seen)
                switch HeadScanner.scanFieldLine(bytes, at: offset, end: end) {
                case .field(let field, let next):
                    if Self.isFramingField(bytes, field) { return fail(.framing("framing field in trailer section")) }
                    state = .trailers(seen: seen + next - offset)
                    offset = next
                case .endOfSection(let next):
                    state = .finished
                    return .finished(next)
                case .incomplete:
                    if end < bytes.count { return fail(.framing("trailer section too large")) }
                    return offset > 0 ? .consumed(offset) : .incomplete
                case .invalid(let failure):
                    return fail(.trailer(failure))
                }
            }
        }
    }

    /// RFC 9110 §6.5.1: framing and routing fields are never trailers. A recipient that merged them into
    /// the head would frame or route the message differently from us.
    private static func isFramingField(_ bytes: UnsafeRawBufferPointer, _ field: HeaderField) -> Bool {
        switch KnownField(bytes, name: field.name) {
        case .contentLength, .transferEncoding, .host: return true
        default: return false
        }
    }

    private mutating func fail(_ refusal: Refusal) -> ControlResult {
        state = .failed(refusal)
        return .invalid(refusal.error)
    }

    private enum SizeLine {
        case line(length: Int, size: UInt64)
        case incomplete
        case invalid(StaticString)
    }

    /// `chunk-size [ chunk-ext ] CRLF` with
    /// `chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )` (RFC 9112 §7.1.1).
    /// BWS is accepted only where that grammar puts it, never before the size or before the CRLF.
    private func scanSizeLine(_ bytes: UnsafeRawBufferPointer, from start: Int) -> SizeLine {
        let end = min(bytes.count, start + maxControlBytes)
        // Out of bytes: wait, unless the line has already run past the limit.
        let outOfBytes: SizeLine = end < bytes.count ? .invalid("chunk size line too long") : .incomplete
        var index = start
        var size: UInt64 = 0
        while index < end, let digit = HTTPByte.hexValue(bytes[index]) {
            guard index - start < Self.maxSizeDigits else { return .invalid("chunk size overflows") }
            size = size << Self.bitsPerHexDigit | UInt64(digit)
            index += 1
        }
        guard index < end else { return outOfBytes }
        guard index > start else { return .invalid("missing chunk size") }
        while true {
            var afterWhitespace = index
            while afterWhitespace < end, HTTPByte.isWhitespace(bytes[afterWhitespace]) { afterWhitespace += 1 }
            guard afterWhitespace < end else { return outOfBytes }
            let byte = bytes[afterWhitespace]
            if byte == HTTPByte.semicolon {
                switch scanExtension(bytes, from: afterWhitespace + 1, end: end) {
                case .success(let next): index = next
                case .failure(.outOfBytes): return outOfBytes
                case .failure(.invalid(let reason)): return .invalid(reason)
                }
                continue
            }
            guard byte == HTTPByte.cr, afterWhitespace == index else {
                return .invalid(byte == HTTPByte.lf ? "bare LF" : "invalid character in chunk size line")
            }
            guard index + 1 < end else { return outOfBytes }
            guard bytes[index + 1] == HTTPByte.lf else { return .invalid("bare CR") }
            return .line(length: index + HTTPByte.crlfLength - start, size: size)
        }
    }

    private enum ExtensionFailure: Error {
        case outOfBytes
        case invalid(StaticString)
    }

    /// `BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ]` after a ";"; returns the index after it.
    private func scanExtension(_ bytes: UnsafeRawBufferPointer, from start: Int, end: Int)
        -> Result<Int, ExtensionFailure>
    {
        var index = skipWhitespace(bytes, from: start, end: end)
        let nameStart = index
        while index < end, HTTPByte.isTokenChar(bytes[index]) { index += 1 }
        guard index < end else { return .failure(.outOfBytes) }
        guard index > nameStart else { return .failure(.invalid("invalid chunk extension")) }
        let beforeEquals = skipWhitespace(bytes, from: index, end: end)
        guard beforeEquals < end else { return .failure(.outOfBytes) }
        guard bytes[beforeEquals] == HTTPByte.equals else { return .success(index) }
        index = skipWhitespace(bytes, from: beforeEquals + 1, end: end)
        guard index < end else { return .failure(.outOfBytes) }
        if bytes[index] == HTTPByte.quote { return scanQuotedString(bytes, from: index + 1, end: end) }
        let valueStart = index
        while index < end, HTTPByte.isTokenChar(bytes[index]) { index += 1 }
        guard index < end else { return .failure(.outOfBytes) }
        return index > valueStart ? .success(index) : .failure(.invalid("invalid chunk extension value"))
    }

    /// The rest of a quoted-string (RFC 9110 §5.6.4) after its opening quote.
    private func scanQuotedString(_ bytes: UnsafeRawBufferPointer, from start: Int, end: Int)
        -> Result<Int, ExtensionFailure>
    {
        var index = start
        while index < end {
            let byte = bytes[index]
            if byte == HTTPByte.quote { return .success(index + 1) }
            if byte == HTTPByte.backslash {
                guard index + 1 < end else { return .failure(.outOfBytes) }
                let escaped = bytes[index + 1]
                guard HTTPByte.isVisible(escaped) || HTTPByte.isWhitespace(escaped) else {
                    return .failure(.invalid("invalid quoted-pair in chunk extension"))
                }
                index += 2  // the backslash and the escaped byte
                continue
            }
            guard HTTPByte.isVisible(byte) || HTTPByte.isWhitespace(byte) else {
                return .failure(.invalid("control character in chunk extension"))
            }
            index += 1
        }
        return .failure(.outOfBytes)
    }

    private func skipWhitespace(_ bytes: UnsafeRawBufferPointer, from start: Int, end: Int) -> Int {
        var index = start
        while index < end, HTTPByte.isWhitespace(bytes[index]) { index += 1 }
        return index
    }
}

extension ChunkedBodyScanner: CustomStringConvertible {
    /// The scanner's state for session logs, e.g. "data remaining=512".
    public var description: String {
        switch state {
        case .sizeLine: return "size-line"
        case .data(let remaining): return "data remaining=\(remaining)"
        case .dataEnd: return "data-end"
        case .trailers(let seen): return "trailers seen=\(seen)"
        case .finished: return "finished"
        case .failed(let error): return "failed \(error)"
        }
    }
}

extension ChunkedBodyScanner.Step: CustomStringConvertible {
    public var description: String {
        switch self {
        case .passData(let count): return "pass-data \(count)"
        case .needControl: return "need-control"
        }
    }
}

extension ChunkedBodyScanner.ControlResult: CustomStringConvertible {
    public var description: String {
        switch self {
        case .incomplete: return "incomplete"
        case .consumed(let count): return "consumed \(count)"
        case .finished(let count): return "finished \(count)"
        case .invalid(let error): return "invalid \(error)"
        }
    }
}

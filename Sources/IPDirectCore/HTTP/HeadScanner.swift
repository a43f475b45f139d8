/// Walks the lines of a message head (RFC 9112 §2.1): where the start line ends, where each field line
/// (RFC 9112 §5) splits into name and value, and where the head ends. Every line must end in CRLF; every
/// byte RFC 9112 lets a recipient refuse is refused here, before any field is interpreted.
///
/// Shared by requests, responses and chunked trailers; callers turn a `Failure` into the status their role
/// answers with.
enum HeadScanner {
    enum Failure: Sendable, Equatable, CustomStringConvertible {
        /// A CR not followed by LF (RFC 9112 §2.2).
        case bareCR
        /// An LF not preceded by CR; RFC 9112 §2.2 lets a recipient accept it, a strict proxy must not,
        /// because a peer that splits lines differently sees different fields (request smuggling).
        case bareLF
        /// A line starting with SP or HTAB: obsolete line folding (RFC 9112 §5.2), or whitespace between
        /// the start line and the first field (RFC 9112 §2.2).
        case obsFold
        /// RFC 9112 §5.1: a server MUST reject whitespace between the field name and the colon.
        case whitespaceBeforeColon
        case emptyFieldName
        case invalidFieldName
        case missingColon
        /// CTLs other than HTAB, including NUL (RFC 9110 §5.5).
        case controlCharacterInValue
        case headTooLarge
        case tooManyFields

        var description: String {
            switch self {
            case .bareCR: return "bare CR in head"
            case .bareLF: return "bare LF in head"
            case .obsFold: return "line starts with whitespace (obs-fold)"
            case .whitespaceBeforeColon: return "whitespace between field name and colon"
            case .emptyFieldName: return "empty field name"
            case .invalidFieldName: return "invalid character in field name"
            case .missingColon: return "field line without colon"
            case .controlCharacterInValue: return "control character in field value"
            case .headTooLarge: return "head too large"
            case .tooManyFields: return "too many header fields"
            }
        }

        /// Whether this is a size limit (431 for requests) rather than malformed syntax.
        var isLimit: Bool {
            self == .headTooLarge || self == .tooManyFields
        }
    }

    enum LineEnd: Equatable {
        /// The index of the CR of the terminating CRLF.
        case found(Int)
        case incomplete
        case invalid(Failure)
    }

    /// Finds the CRLF that ends the line starting at `start`, looking only below `end`.
    /// Other bytes of the line are left for the caller's grammar to check.
    @inline(__always)
    static func findLineEnd(_ bytes: UnsafeRawBufferPointer, from start: Int, end: Int) -> LineEnd {
        var index = start
        while index < end {
            index = skip(.lineText, bytes, from: index, end: end)
            guard index < end else { break }
            let byte = bytes[index]
            if byte == HTTPByte.cr {
                guard index + 1 < end else { return .incomplete }
                return bytes[index + 1] == HTTPByte.lf ? .found(index) : .invalid(.bareCR)
            }
            if byte == HTTPByte.lf { return .invalid(.bareLF) }
            index += 1
        }
        return .incomplete
    }

    /// The runs of plain bytes a head is mostly made of.
    enum PlainRun {
        /// `HTTPByteWord.lineTextPrefixLength`.
        case lineText
        /// `HTTPByteWord.namePrefixLength`.
        case fieldName
        /// `HTTPByteWord.valuePrefixLength`.
        case fieldValue
        /// `HTTPByteWord.targetPrefixLength`.
        case requestTarget
    }

    /// Skips the bytes of one run from `start`, sixteen at a time and then eight, stopping at the first byte that
    /// may lie outside it or when fewer than eight are left before `end`; the caller decides the byte there.
    /// `run` is a constant at every call, so each inlined copy keeps one branch of each switch.
    @inline(__always)
    static func skip(_ run: PlainRun, _ bytes: UnsafeRawBufferPointer, from start: Int, end: Int) -> Int {
        var index = start
        while end &- index >= HTTPByteVector.length {
            let count: Int
            switch run {
            case .lineText: count = HTTPByteVector.lineTextPrefixLength(bytes, at: index)
            case .fieldName: count = HTTPByteVector.namePrefixLength(bytes, at: index)
            case .fieldValue: count = HTTPByteVector.valuePrefixLength(bytes, at: index)
            case .requestTarget: count = HTTPByteVector.targetPrefixLength(bytes, at: index)
            }
            index &+= count
            if count < HTTPByteVector.length { return index }
        }
        guard end &- index >= HTTPByteWord.length else { return index }
        switch run {
        case .lineText: return index &+ HTTPByteWord.lineTextPrefixLength(bytes, at: index)
        case .fieldName: return index &+ HTTPByteWord.namePrefixLength(bytes, at: index)
        case .fieldValue: return index &+ HTTPByteWord.valuePrefixLength(bytes, at: index)
        case .requestTarget: return index &+ HTTPByteWord.targetPrefixLength(bytes, at: index)
        }
    }

    enum FieldLine: Equatable {
        /// A field line; `next` is the index just after its CRLF.
        case field(HeaderField, next: Int)
        /// The empty line ending the head (or the trailer section); `next` is just after it.
        case endOfSection(next: Int)
        case incomplete
        case invalid(Failure)
    }

    /// Scans one line at `start` as `field-line CRLF` or as the empty line, looking only below `end`.
    /// Inlined so that a caller's loop keeps the result in registers: built and returned through memory, the
    /// enum and its field cost about a quarter of a line's instructions.
    @inline(__always)
    static func scanFieldLine(_ bytes: UnsafeRawBufferPointer, at start: Int, end: Int) -> FieldLine {
        guard start < end else { return .incomplete }
        if bytes[start] == HTTPByte.cr {
            guard start + 1 < end else { return .incomplete }
            return bytes[start + 1] == HTTPByte.lf ? .endOfSection(next: start + HTTPByte.crlfLength) : .invalid(.bareCR)
        }
        var index = start
        while true {
            index = skip(.fieldName, bytes, from: index, end: end)
            // Nearly every name ends at its colon, which is no token character.
            guard index < end, bytes[index] != HTTPByte.colon, HTTPByte.isTokenChar(bytes[index]) else { break }
            index += 1
        }
        guard index < end else { return .incomplete }
        let nameEnd = index
        let stop = bytes[index]
        guard stop == HTTPByte.colon, nameEnd > start else {
            return .invalid(nameFailure(stop: stop, nameIsEmpty: nameEnd == start))
        }
        index += 1
        while index < end, HTTPByte.isWhitespace(bytes[index]) { index += 1 }
        let valueStart = index
        while true {
            // Most of a head is values, and most value bytes need no decision one by one.
            index = skip(.fieldValue, bytes, from: index, end: end)
            guard index < end else { return .incomplete }
            let byte = bytes[index]
            // Nearly every value ends at its CR, which is neither visible nor whitespace.
            guard byte == HTTPByte.cr else {
                if HTTPByte.isVisible(byte) || HTTPByte.isWhitespace(byte) {
                    index += 1
                    continue
                }
                return .invalid(byte == HTTPByte.lf ? .bareLF : .controlCharacterInValue)
            }
            guard index + 1 < end else { return .incomplete }
            guard bytes[index + 1] == HTTPByte.lf else { return .invalid(.bareCR) }
            // Only visible bytes and whitespace lie between the value's start and the CR.
            var valueEnd = index
            while valueEnd > valueStart, HTTPByte.isWhitespace(bytes[valueEnd - 1]) { valueEnd -= 1 }
            let field = HeaderField(name: start..<nameEnd, value: valueStart..<valueEnd)
            return .field(field, next: index + HTTPByte.crlfLength)
        }
    }

    private static func nameFailure(stop: UInt8, nameIsEmpty: Bool) -> Failure {
        if stop == HTTPByte.lf { return .bareLF }
        if nameIsEmpty {
            if HTTPByte.isWhitespace(stop) { return .obsFold }
            return stop == HTTPByte.colon ? .emptyFieldName : .invalidFieldName
        }
        if HTTPByte.isWhitespace(stop) { return .whitespaceBeforeColon }
        return stop == HTTPByte.cr ? .missingColon : .invalidFieldName
    }

    enum Fields {
        /// The field lines are in the caller's array; `headLength` counts from the start of the buffer
        /// through the final CRLF CRLF.
        case complete(headLength: Int)
        case incomplete
        case invalid(Failure)
    }

    /// Field lines most heads fit in without the array growing.
    static let typicalFieldCount = 24

    /// Scans field lines from `start` up to and including the empty line that ends the head into `fields`
    /// (emptied first, its storage kept when nothing else holds it), classifying each name once and handing
    /// each line to `summary` as it is found.
    /// Nothing past `limits.maxHeadBytes` is looked at: a head that has not ended there is too large.
    static func scanFields(_ bytes: UnsafeRawBufferPointer, from start: Int, limits: HTTPHeadLimits,
                           into fields: inout [HeaderField], summary: inout HeadFieldSummary) -> Fields
    {
        let end = min(bytes.count, limits.maxHeadBytes)
        fields.removeAll(keepingCapacity: true)
        fields.reserveCapacity(min(typicalFieldCount, limits.maxFieldCount))
        var position = start
        while true {
            switch scanFieldLine(bytes, at: position, end: end) {
            case .field(var field, let next):
                guard fields.count < limits.maxFieldCount else { return .invalid(.tooManyFields) }
                field.known = KnownField(bytes, name: field.name)
                summary.add(field, in: bytes)
                fields.append(field)
                position = next
            case .endOfSection(let next):
                return .complete(headLength: next)
            case .incomplete:
                return bytes.count > limits.maxHeadBytes ? .invalid(.headTooLarge) : .incomplete
            case .invalid(let failure):
                return .invalid(failure)
            }
        }
    }
}

/// The four TOML 1.0 string forms ("String" section): basic `"..."` with escapes, literal
/// `'...'` taken verbatim, and their multi-line `"""` / `'''` variants.
extension TOMLParser {
    /// At the opening `"`; single line, escapes decoded.
    mutating func parseBasicString() throws(TOMLProblem) -> String {
        let startLine = currentLine
        position += 1
        var content: [UInt8] = []
        while true {
            guard let byte = peek() else { throw unterminated("string", startLine: startLine) }
            switch byte {
            case ASCII.quote:
                position += 1
                return String(decoding: content, as: UTF8.self)
            case ASCII.backslash:
                parseEscape(into: &content)
            case ASCII.newline, ASCII.carriageReturn:
                throw problem("the string started on line \(startLine) must end on the same line (use \"\"\" for multi-line strings)")
            default:
                appendContent(byte, to: &content)
            }
        }
    }

    /// At the opening `'`; single line, no escapes.
    mutating func parseLiteralString() throws(TOMLProblem) -> String {
        let startLine = currentLine
        position += 1
        var content: [UInt8] = []
        while true {
            guard let byte = peek() else { throw unterminated("literal string", startLine: startLine) }
            switch byte {
            case ASCII.apostrophe:
                position += 1
                return String(decoding: content, as: UTF8.self)
            case ASCII.newline, ASCII.carriageReturn:
                throw problem("the literal string started on line \(startLine) must end on the same line (use ''' for multi-line strings)")
            default:
                appendContent(byte, to: &content)
            }
        }
    }

    /// At the opening `"""`. A newline right after the opening is dropped, and a backslash at
    /// the end of a line removes it together with the whitespace that follows.
    mutating func parseMultiLineBasicString() throws(TOMLProblem) -> String {
        let startLine = currentLine
        position += 3
        try skipNewlineAfterOpening()
        var content: [UInt8] = []
        while true {
            guard let byte = peek() else { throw unterminated("multi-line string", startLine: startLine) }
            switch byte {
            case ASCII.quote:
                if closesMultiLineString(delimiter: ASCII.quote, content: &content) {
                    return String(decoding: content, as: UTF8.self)
                }
            case ASCII.backslash:
                if isLineEndingBackslash() {
                    position += 1
                    try skipWhitespaceAndNewlines()
                } else {
                    parseEscape(into: &content)
                }
            case ASCII.newline, ASCII.carriageReturn:
                try consumeNewline()
                content.append(ASCII.newline)
            default:
                appendContent(byte, to: &content)
            }
        }
    }

    /// At the opening `'''`; taken verbatim apart from a newline right after the opening.
    mutating func parseMultiLineLiteralString() throws(TOMLProblem) -> String {
        let startLine = currentLine
        position += 3
        try skipNewlineAfterOpening()
        var content: [UInt8] = []
        while true {
            guard let byte = peek() else { throw unterminated("multi-line literal string", startLine: startLine) }
            switch byte {
            case ASCII.apostrophe:
                if closesMultiLineString(delimiter: ASCII.apostrophe, content: &content) {
                    return String(decoding: content, as: UTF8.self)
                }
            case ASCII.newline, ASCII.carriageReturn:
                try consumeNewline()
                content.append(ASCII.newline)
            default:
                appendContent(byte, to: &content)
            }
        }
    }

    private mutating func skipNewlineAfterOpening() throws(TOMLProblem) {
        if peek() == ASCII.newline || peek() == ASCII.carriageReturn { try consumeNewline() }
    }

    /// At a run of delimiter quotes: fewer than three are content; three to five close the
    /// string, the one or two extra being content (`""""a""""` is `"a"`).
    private mutating func closesMultiLineString(delimiter: UInt8, content: inout [UInt8]) -> Bool {
        var run = 0
        while peek(offset: run) == delimiter { run += 1 }
        let maximumRun = 5
        let consumed = min(run, maximumRun)
        position += consumed
        if run < 3 {
            content.append(contentsOf: repeatElement(delimiter, count: run))
            return false
        }
        content.append(contentsOf: repeatElement(delimiter, count: consumed - 3))
        return true
    }

    /// A backslash followed only by spaces or tabs up to the end of the line.
    private func isLineEndingBackslash() -> Bool {
        var offset = 1
        while let byte = peek(offset: offset), byte == ASCII.space || byte == ASCII.tab { offset += 1 }
        let next = peek(offset: offset)
        return next == ASCII.newline || next == ASCII.carriageReturn
    }

    private mutating func skipWhitespaceAndNewlines() throws(TOMLProblem) {
        while let byte = peek() {
            switch byte {
            case ASCII.space, ASCII.tab: position += 1
            case ASCII.newline, ASCII.carriageReturn: try consumeNewline()
            default: return
            }
        }
    }

    /// Raw content byte: control characters other than tab must be escaped (TOML 1.0 "String").
    private mutating func appendContent(_ byte: UInt8, to content: inout [UInt8]) {
        if Self.isControl(byte) {
            problems.append(problem("control character \(Self.codePoint(byte)) must be escaped in a string"))
        } else {
            content.append(byte)
        }
        position += 1
    }

    /// At a backslash. Invalid escapes are recorded and skipped; the string goes on.
    private mutating func parseEscape(into content: inout [UInt8]) {
        position += 1
        guard let letter = peek(), letter != ASCII.newline, letter != ASCII.carriageReturn else {
            problems.append(problem("a backslash must be followed by an escape character"))
            return
        }
        position += 1
        let simpleEscapes: [UInt8: UInt8] = [
            UInt8(ascii: "b"): 0x08, UInt8(ascii: "t"): ASCII.tab, UInt8(ascii: "n"): ASCII.newline,
            UInt8(ascii: "f"): 0x0C, UInt8(ascii: "r"): ASCII.carriageReturn,
            ASCII.quote: ASCII.quote, ASCII.backslash: ASCII.backslash,
        ]
        if let replacement = simpleEscapes[letter] {
            content.append(replacement)
            return
        }
        let shortUnicodeDigits = 4
        let longUnicodeDigits = 8
        switch letter {
        case UInt8(ascii: "u"): parseUnicodeEscape(digits: shortUnicodeDigits, into: &content)
        case UInt8(ascii: "U"): parseUnicodeEscape(digits: longUnicodeDigits, into: &content)
        default:
            let shown = letter < 0x80 && !Self.isControl(letter) ? String(Character(Unicode.Scalar(letter))) : Self.codePoint(letter)
            problems.append(problem("invalid escape '\\\(shown)' (allowed: \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)"))
        }
    }

    private mutating func parseUnicodeEscape(digits: Int, into content: inout [UInt8]) {
        let letter = digits == 4 ? "u" : "U"
        var value: UInt32 = 0
        for index in 0..<digits {
            guard let byte = peek(), let digit = HTTPByte.hexValue(byte) else {
                problems.append(problem("\\\(letter) must be followed by \(digits) hex digits, found \(index)"))
                return
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        guard let scalar = Unicode.Scalar(value) else {
            let hex = String(value, radix: 16, uppercase: true)
            problems.append(problem("\\\(letter)\(hex) is not a Unicode scalar value"))
            return
        }
        UTF8.encode(scalar) { content.append($0) }
    }

    private func unterminated(_ kind: String, startLine: Int) -> TOMLProblem {
        TOMLProblem(line: startLine, message: "the \(kind) started on line \(startLine) is never closed")
    }
}

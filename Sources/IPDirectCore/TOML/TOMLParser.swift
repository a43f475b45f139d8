/// Reads TOML 1.0 (https://toml.io/en/v1.0.0) into a `TOMLTable` tree in which every key and
/// value keeps its line, so configuration problems can be reported as `FILE:LINE: message`.
///
/// Date/time values are refused. Problems that leave the structure readable (duplicate keys,
/// bad escapes, malformed numbers, dates) are collected and reading goes on; a syntax error
/// that leaves the structure unclear ends reading at its line.
struct TOMLParser {
    /// Arrays and inline tables nested deeper than this are refused, so hostile input cannot
    /// exhaust the stack through recursion.
    static let maximumNesting = 64

    enum ASCII {
        static let tab = UInt8(ascii: "\t")
        static let newline = UInt8(ascii: "\n")
        static let carriageReturn = UInt8(ascii: "\r")
        static let space = UInt8(ascii: " ")
        static let quote = UInt8(ascii: "\"")
        static let apostrophe = UInt8(ascii: "'")
        static let backslash = UInt8(ascii: "\\")
        static let hash = UInt8(ascii: "#")
        static let equals = UInt8(ascii: "=")
        static let dot = UInt8(ascii: ".")
        static let comma = UInt8(ascii: ",")
        static let openBracket = UInt8(ascii: "[")
        static let closeBracket = UInt8(ascii: "]")
        static let openBrace = UInt8(ascii: "{")
        static let closeBrace = UInt8(ascii: "}")
        static let delete: UInt8 = 0x7F
        static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    }

    let bytes: [UInt8]
    var position = 0
    var problems: [TOMLProblem] = []
    private var nesting = 0
    /// Offset of the first byte of each line, for turning positions into line numbers.
    private let lineStarts: [Int]
    private let root = TOMLTableBuilder(origin: .header, line: 0)
    private var current: TOMLTableBuilder
    /// Counts `[headers]`; dotted keys may only extend tables created in the same section.
    private var section = 0

    private init(_ text: String) {
        bytes = Array(text.utf8)
        var starts = [0]
        for (offset, byte) in bytes.enumerated() where byte == ASCII.newline {
            starts.append(offset + 1)
        }
        lineStarts = starts
        current = root
    }

    static func parse(_ text: String) -> TOMLDocument {
        var parser = TOMLParser(text)
        do throws(TOMLProblem) {
            try parser.parseDocument()
        } catch {
            parser.problems.append(error)
        }
        return TOMLDocument(root: parser.root.build(), problems: parser.problems)
    }

    // MARK: Document structure

    private mutating func parseDocument() throws(TOMLProblem) {
        if bytes.starts(with: ASCII.byteOrderMark) { position = ASCII.byteOrderMark.count }
        while true {
            skipSpaces()
            guard let byte = peek() else { return }
            switch byte {
            case ASCII.newline, ASCII.carriageReturn:
                try consumeNewline()
            case ASCII.hash:
                skipComment()
            case ASCII.openBracket:
                try parseHeader()
                try expectLineEnd()
            default:
                try parseKeyValue(into: current, section: section)
                try expectLineEnd()
            }
        }
    }

    /// `[a.b]` or `[[a.b]]`.
    private mutating func parseHeader() throws(TOMLProblem) {
        let line = currentLine
        position += 1
        let isArrayOfTables = peek() == ASCII.openBracket
        if isArrayOfTables { position += 1 }
        skipSpaces()
        let path = try parseKey()
        skipSpaces()
        let closing = isArrayOfTables ? "]]" : "]"
        for _ in 0..<closing.utf8.count {
            guard peek() == ASCII.closeBracket else {
                throw problem("expected '\(closing)' to close the table header, found \(describeNext())")
            }
            position += 1
        }
        section += 1
        do throws(TOMLProblem) {
            current = isArrayOfTables
                ? try root.appendTable(path, line: line)
                : try root.defineTable(path, line: line)
        } catch {
            problems.append(error)
            // Keys under a refused header go to a detached table so they raise no false duplicates.
            current = TOMLTableBuilder(origin: .header, line: line)
        }
    }

    /// `key = value`, where key may be dotted; used for documents and inline tables alike.
    private mutating func parseKeyValue(into table: TOMLTableBuilder, section: Int) throws(TOMLProblem) {
        let keyLine = currentLine
        let path = try parseKey()
        skipSpaces()
        guard peek() == ASCII.equals else {
            throw problem("expected '=' after key \(LogQuote.singleQuoted(TOMLTableBuilder.display(path))), found \(describeNext())")
        }
        position += 1
        skipSpaces()
        guard let value = try parseValue() else { return }
        do throws(TOMLProblem) {
            try table.assign(path, value: value, keyLine: keyLine, section: section)
        } catch {
            problems.append(error)
        }
    }

    /// A bare, quoted or dotted key; whitespace around the dots is allowed.
    mutating func parseKey() throws(TOMLProblem) -> [String] {
        var parts = [try parseSimpleKey()]
        while true {
            let beforeSpaces = position
            skipSpaces()
            guard peek() == ASCII.dot else {
                position = beforeSpaces
                return parts
            }
            position += 1
            skipSpaces()
            parts.append(try parseSimpleKey())
        }
    }

    private mutating func parseSimpleKey() throws(TOMLProblem) -> String {
        switch peek() {
        case ASCII.quote?, ASCII.apostrophe?:
            let delimiter = bytes[position]
            if peek(offset: 1) == delimiter && peek(offset: 2) == delimiter {
                throw problem("a multi-line string cannot be a key")
            }
            return delimiter == ASCII.quote ? try parseBasicString() : try parseLiteralString()
        default:
            let start = position
            while let byte = peek(), Self.isBareKeyByte(byte) { position += 1 }
            guard position > start else { throw problem("expected a key, found \(describeNext())") }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }
    }

    static func isBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    // MARK: Values

    /// Returns nil after recording a problem that consumed the whole value, so reading can go on.
    mutating func parseValue() throws(TOMLProblem) -> TOMLValue? {
        let line = currentLine
        switch peek() {
        case nil, ASCII.newline?, ASCII.carriageReturn?, ASCII.hash?:
            throw problem("expected a value, found \(describeNext())")
        case ASCII.quote?:
            let isMultiLine = peek(offset: 1) == ASCII.quote && peek(offset: 2) == ASCII.quote
            return TOMLValue(.string(isMultiLine ? try parseMultiLineBasicString() : try parseBasicString()), line: line)
        case ASCII.apostrophe?:
            let isMultiLine = peek(offset: 1) == ASCII.apostrophe && peek(offset: 2) == ASCII.apostrophe
            return TOMLValue(.string(isMultiLine ? try parseMultiLineLiteralString() : try parseLiteralString()), line: line)
        case ASCII.openBracket?:
            return try parseArray()
        case ASCII.openBrace?:
            return try parseInlineTable()
        default:
            return try parseBareValue()
        }
    }

    private mutating func parseArray() throws(TOMLProblem) -> TOMLValue {
        let line = currentLine
        position += 1
        try enterNesting()
        defer { nesting -= 1 }
        var elements: [TOMLValue] = []
        while true {
            try skipBlankLines()
            if peek() == ASCII.closeBracket {
                // Empty, or closed right after a trailing comma.
                position += 1
                return TOMLValue(.array(elements), line: line)
            }
            if peek() == nil { throw problem("the array started on line \(line) is not closed with ']'") }
            if let element = try parseValue() { elements.append(element) }
            try skipBlankLines()
            switch peek() {
            case ASCII.comma?:
                position += 1
            case ASCII.closeBracket?:
                position += 1
                return TOMLValue(.array(elements), line: line)
            case nil:
                throw problem("the array started on line \(line) is not closed with ']'")
            default:
                throw problem("expected ',' or ']' in the array started on line \(line), found \(describeNext())")
            }
        }
    }

    /// `{ key = value, ... }`: one line outside its values, no trailing comma (TOML 1.0 "Inline Table").
    private mutating func parseInlineTable() throws(TOMLProblem) -> TOMLValue {
        let line = currentLine
        position += 1
        try enterNesting()
        defer { nesting -= 1 }
        let table = TOMLTableBuilder(origin: .header, line: line)
        skipSpaces()
        if peek() == ASCII.closeBrace {
            position += 1
            return TOMLValue(.table(table.build()), line: line)
        }
        while true {
            skipSpaces()
            if peek() == ASCII.closeBrace { throw problem("a trailing comma is not allowed in an inline table") }
            if peek() == ASCII.newline || peek() == ASCII.carriageReturn || peek() == nil {
                throw problem("the inline table started on line \(line) must be closed with '}' on the same line")
            }
            try parseKeyValue(into: table, section: 0)
            skipSpaces()
            switch peek() {
            case ASCII.comma?:
                position += 1
            case ASCII.closeBrace?:
                position += 1
                return TOMLValue(.table(table.build()), line: line)
            case nil, ASCII.newline?, ASCII.carriageReturn?:
                throw problem("the inline table started on line \(line) must be closed with '}' on the same line")
            default:
                throw problem("expected ',' or '}' in the inline table started on line \(line), found \(describeNext())")
            }
        }
    }

    private mutating func enterNesting() throws(TOMLProblem) {
        nesting += 1
        if nesting > Self.maximumNesting {
            throw problem("arrays and inline tables are nested more than \(Self.maximumNesting) deep")
        }
    }

    // MARK: Whitespace, comments, newlines

    func peek(offset: Int = 0) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    var currentLine: Int { line(at: position) }

    func line(at offset: Int) -> Int {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low + 1
    }

    func problem(_ message: String) -> TOMLProblem {
        TOMLProblem(line: currentLine, message: message)
    }

    mutating func skipSpaces() {
        while let byte = peek(), byte == ASCII.space || byte == ASCII.tab { position += 1 }
    }

    /// Spaces, newlines and comments, as allowed between array elements.
    private mutating func skipBlankLines() throws(TOMLProblem) {
        while true {
            skipSpaces()
            switch peek() {
            case ASCII.newline?, ASCII.carriageReturn?: try consumeNewline()
            case ASCII.hash?: skipComment()
            default: return
            }
        }
    }

    mutating func consumeNewline() throws(TOMLProblem) {
        if peek() == ASCII.carriageReturn {
            guard peek(offset: 1) == ASCII.newline else {
                throw problem("a carriage return must be followed by a line feed")
            }
            position += 1
        }
        position += 1
    }

    /// Skips to the end of the line; TOML 1.0 forbids control characters other than tab in comments.
    private mutating func skipComment() {
        while let byte = peek(), byte != ASCII.newline, byte != ASCII.carriageReturn {
            if Self.isControl(byte) {
                problems.append(problem("control character \(Self.codePoint(byte)) is not allowed in a comment"))
            }
            position += 1
        }
    }

    private mutating func expectLineEnd() throws(TOMLProblem) {
        skipSpaces()
        if peek() == ASCII.hash { skipComment() }
        switch peek() {
        case nil: return
        case ASCII.newline?, ASCII.carriageReturn?: try consumeNewline()
        default: throw problem("expected the end of the line, found \(describeNext())")
        }
    }

    /// Control characters that must not appear raw in strings or comments (tab is allowed).
    static func isControl(_ byte: UInt8) -> Bool {
        (byte < ASCII.space && byte != ASCII.tab) || byte == ASCII.delete
    }

    static func codePoint(_ byte: UInt8) -> String {
        let hex = String(byte, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    /// Names the next character for messages: `'x'`, "the end of the line", "the end of the file".
    func describeNext() -> String {
        guard let byte = peek() else { return "the end of the file" }
        switch byte {
        case ASCII.newline, ASCII.carriageReturn: return "the end of the line"
        case ASCII.space..<ASCII.delete: return "'\(Character(Unicode.Scalar(byte)))'"
        default: return Self.isControl(byte) ? "control character \(Self.codePoint(byte))" : "a non-ASCII character"
        }
    }
}

import Testing
@testable import IPDirectCore

@Suite struct LogQuoteTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let input: String
        let limit: Int
        let quoted: String
        let token: String

        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(label: "short", input: "www.example.com", limit: 8, quoted: "\"www.exam\"…(15 bytes)",
             token: "www.exam…(15 bytes)"),
        Case(label: "shorter than the limit", input: "abc", limit: 8, quoted: "\"abc\"", token: "abc"),
        Case(label: "exactly the limit", input: "abcdefgh", limit: 8, quoted: "\"abcdefgh\"", token: "abcdefgh"),
        Case(label: "one byte over the limit", input: "abcdefghi", limit: 8, quoted: "\"abcdefgh\"…(9 bytes)",
             token: "abcdefgh…(9 bytes)"),
        Case(label: "empty", input: "", limit: 8, quoted: "\"\"", token: ""),
        // "é" is two bytes: after "abcdefg" only one byte is left, so it is left out whole.
        Case(label: "a two-byte character across the limit", input: "abcdefgé", limit: 8,
             quoted: "\"abcdefg\"…(9 bytes)", token: "abcdefg?"),
        Case(label: "a four-byte character across the limit", input: "abcde😀", limit: 8,
             quoted: "\"abcde\"…(9 bytes)", token: "abcde?"),
        Case(label: "characters that fit", input: "é😀", limit: 8, quoted: "\"é😀\"", token: "??"),
        // "\n" becomes two bytes of output: an escape is never cut in two.
        Case(label: "an escape across the limit", input: "abcdefg\nh", limit: 8, quoted: "\"abcdefg\"…(9 bytes)",
             token: "abcdefg?…(9 bytes)"),
        Case(label: "a unicode escape across the limit", input: "abc\u{1}def", limit: 8, quoted: "\"abc\"…(7 bytes)",
             token: "abc?def"),
        Case(label: "quotes, backslash and a line break", input: "a\"b\\c\r\n", limit: 120,
             quoted: "\"a\\\"b\\\\c\\r\\n\"", token: "a?b\\c??"),
        Case(label: "controls, DEL and a Unicode line separator", input: "\u{0}\u{7F}\u{85}\u{2028}", limit: 120,
             quoted: "\"\\u0000\\u007f\\u0085\\u2028\"", token: "????"),
        Case(label: "spaces", input: "a b", limit: 120, quoted: "\"a b\"", token: "a?b"),
    ]

    @Test(arguments: cases)
    func quotesAtMostTheLimitAndMarksTheCut(_ row: Case) {
        #expect(LogQuote.quoted(row.input, limit: row.limit) == row.quoted)
    }

    @Test(arguments: cases)
    func makesOneBoundedToken(_ row: Case) {
        #expect(LogQuote.token(row.input, limit: row.limit) == row.token)
    }

    @Test func singleQuotesEscapeBothQuotesSoTheyNestInAQuotedLogField() {
        #expect(LogQuote.singleQuoted("it's \"x\"") == "'it\\'s \\\"x\\\"'")
    }

    @Test func aHugeInputBecomesAShortQuoteWithItsSize() {
        let huge = String(repeating: "n", count: 300_000)
        let quoted = LogQuote.quoted(huge)
        #expect(quoted == "\"" + String(repeating: "n", count: LogQuote.defaultLimit) + "\"…(300000 bytes)")
        #expect(LogQuote.token(huge).utf8.count < 2 * LogQuote.defaultLimit)
    }

    @Test func valuesAreQuotedByTheirDescription() {
        let host: Substring = "a.test:80"[...]
        #expect(LogQuote.quoted(host.dropLast(3)) == "\"a.test\"")
        #expect(LogQuote.token(8080) == "8080")
    }
}

import Testing
@testable import IPDirectCore

@Suite struct JSONReaderTests {
    private func parse(_ text: String) -> Result<JSONValue, JSONReader.Failure> {
        JSONReader.parse(Array(text.utf8))
    }

    @Test(arguments: [
        ("null", JSONValue.null), ("true", .bool(true)), (" false ", .bool(false)),
        ("-0", .number("-0")), ("12.5e-3", .number("12.5e-3")), ("\"a\\\"b\\\\c\\/\"", .string("a\"b\\c/")),
        ("\"\\u00e9\\ud83d\\ude00\\n\"", .string("é😀\n")), ("[1, [], {}]", .array([.number("1"), .array([]), .object([:])])),
        ("{\"a\": {\"b\": [null]}}", .object(["a": .object(["b": .array([.null])])])),
    ])
    func readsEveryKindOfValue(text: String, expected: JSONValue) throws {
        #expect(try parse(text).get() == expected)
    }

    @Test(arguments: [
        "", "nul", "01", "1.", ".5", "-", "1e", "+1", "[1,]", "{\"a\":1,}", "{a:1}", "'a'", "\"tab\there\"",
        "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "[1 2]", "{\"a\" 1}", "\"open", "[", "1 2", "NaN", "\u{FEFF}1",
    ])
    func refusesTextThatIsNotStrictJSON(text: String) {
        #expect(throws: JSONReader.Failure.self) { try parse(text).get() }
    }

    @Test func refusesDuplicateMemberNames() {
        #expect(parse("{\"ttl\": 1, \"ttl\": 2}") == .failure(.duplicateName("ttl")))
    }

    @Test func refusesInvalidUTF8InStrings() {
        #expect(JSONReader.parse([0x22, 0xC3, 0x28, 0x22]) == .failure(.invalidString(offset: 0)))
    }

    @Test func refusesTextLargerThanTheLimit() {
        #expect(JSONReader.parse(Array("[1, 2]".utf8), sizeLimit: 5) == .failure(.tooLarge(size: 6, limit: 5)))
    }

    @Test func refusesNestingDeeperThanTheLimit() {
        #expect(JSONReader.parse(Array("[[[1]]]".utf8), depthLimit: 2) == .failure(.tooDeep(limit: 2)))
        #expect((try? JSONReader.parse(Array("[[1]]".utf8), depthLimit: 2).get()) != nil)
        let deep = String(repeating: "[", count: 100_000)
        #expect(JSONReader.parse(Array(deep.utf8), sizeLimit: 200_000) == .failure(.tooDeep(limit: JSONReader.defaultDepthLimit)))
    }

    @Test(arguments: [("600", 600), ("-3", -3), ("0", 0)])
    func readsPlainIntegers(text: String, expected: Int) {
        #expect(JSONValue.number(text).integerValue == expected)
    }

    @Test(arguments: ["1.5", "1e3", "99999999999999999999"])
    func doesNotReadFractionsExponentsOrOverflowAsIntegers(text: String) {
        #expect(JSONValue.number(text).integerValue == nil)
    }

    @Test func failuresSayWhatWasWrong() {
        #expect(JSONReader.Failure.duplicateName("ttl").description == "JSON object repeats the member 'ttl'")
        #expect(JSONReader.Failure.unexpectedByte(0x7D, offset: 9).description.contains("0x7d"))
    }
}

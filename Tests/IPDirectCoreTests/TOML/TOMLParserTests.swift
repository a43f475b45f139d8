import Testing
@testable import IPDirectCore

/// TOML 1.0 syntax: what is accepted and what it means, what is refused and on which line.
@Suite struct TOMLParserTests {
    /// Compact rendering of a tree, so expected documents fit in a table: `{a=1,b=[true,"x"]}`.
    static func render(_ value: TOMLValue) -> String {
        switch value.kind {
        case .string(let text): return "\"\(text)\""
        case .integer(let number): return String(number)
        case .float(let number): return "\(number)"
        case .boolean(let flag): return String(flag)
        case .array(let items): return "[" + items.map(render).joined(separator: ",") + "]"
        case .table(let table): return render(table)
        }
    }

    static func render(_ table: TOMLTable) -> String {
        "{" + table.entries.map { "\($0.key)=\(render($0.value))" }.joined(separator: ",") + "}"
    }

    /// The value of `a` in a one-key document that must parse cleanly.
    static func valueOfA(_ text: String) -> TOMLValue.Kind? {
        let document = TOMLParser.parse(text)
        guard document.problems.isEmpty else { return nil }
        return document.root["a"]?.kind
    }

    @Test(arguments: [
        ("", "{}"),
        ("# only a comment\n\n", "{}"),
        ("a = 1", "{a=1}"),
        ("a=1 # trailing comment\r\nb = 2\r\n", "{a=1,b=2}"),
        ("\ta\t=\t1\t", "{a=1}"),
        ("bare-key_1 = 1\n1234 = 2\n\"quoted key\" = 3\n'literal key' = 4\n\"\" = 5", "{bare-key_1=1,1234=2,quoted key=3,literal key=4,=5}"),
        ("a.b.c = 1\na . b . d = 2", "{a={b={c=1,d=2}}}"),
        ("\"a.b\" = 1", "{a.b=1}"),
        ("[t]\nx = 1\n[u.v]\ny = 2", "{t={x=1},u={v={y=2}}}"),
        ("[ a . \"b c\" ]\nx = 1", "{a={b c={x=1}}}"),
        ("[a.b]\nx = 1\n[a]\ny = 2", "{a={b={x=1},y=2}}"),
        ("[fruit]\napple.color = \"red\"\n[fruit.apple.texture]\nsmooth = true", "{fruit={apple={color=\"red\",texture={smooth=true}}}}"),
        ("[[p]]\nn = 1\n[[p]]\nn = 2\n[p.q]\nm = 3", "{p=[{n=1},{n=2,q={m=3}}]}"),
        ("[[a.b]]\n[[a.b]]\nc = 1", "{a={b=[{},{c=1}]}}"),
        ("a = [1, \"x\", [2.5], {b = true}]", "{a=[1,\"x\",[2.5],{b=true}]}"),
        ("a = [\n  1, # one\n  2, # two\n]", "{a=[1,2]}"),
        ("a = []\nb = [ ]\nc = [\n]", "{a=[],b=[],c=[]}"),
        ("a = {}\nb = { x = 1, y.z = 2 }", "{a={},b={x=1,y={z=2}}}"),
        ("a = { b = [\n1,\n2] }", "{a={b=[1,2]}}"),
        ("a = 1_000\nb = -17\nc = +0\nd = 0xDEAD_beef\ne = 0o755\nf = 0b1010", "{a=1000,b=-17,c=0,d=3735928559,e=493,f=10}"),
        ("a = 9223372036854775807\nb = -9223372036854775808", "{a=9223372036854775807,b=-9223372036854775808}"),
        ("a = 1.5\nb = -0.25\nc = 5e+2\nd = 1E-2\ne = 6.626e-34\nf = 1_0.5_0", "{a=1.5,b=-0.25,c=500.0,d=0.01,e=6.626e-34,f=10.5}"),
        ("a = inf\nb = -inf\nc = true\nd = false", "{a=inf,b=-inf,c=true,d=false}"),
    ])
    func acceptsValidDocuments(text: String, expected: String) {
        let document = TOMLParser.parse(text)
        #expect(document.problems == [])
        #expect(Self.render(document.root) == expected)
    }

    @Test(arguments: [
        (#"a = "tab\tquote\"backslash\\""#, "tab\tquote\"backslash\\"),
        (#"a = "\b\f\r\n""#, "\u{08}\u{0C}\r\n"),
        (#"a = "\u00E9\U0001F600""#, "é😀"),
        (#"a = 'C:\path\no escapes'"#, #"C:\path\no escapes"#),
        ("a = \"\"\"\nfirst\nsecond\"\"\"", "first\nsecond"),
        ("a = \"\"\"one \\\n     two\"\"\"", "one two"),
        ("a = \"\"\"one \\   \n\n   two\"\"\"", "one two"),
        ("a = \"\"\"\"quoted\"\"\"\"\"", "\"quoted\"\""),
        ("a = '''\nraw \\n\n'''", "raw \\n\n"),
        ("a = ''''x'''''", "'x''"),
        ("a = \"\"\"\r\ncrlf\r\n\"\"\"", "crlf\n"),
        ("a = \"é\"", "é"),
    ])
    func decodesStrings(text: String, expected: String) {
        #expect(Self.valueOfA(text) == .string(expected))
    }

    @Test func readsNotANumber() {
        guard case .float(let value)? = Self.valueOfA("a = nan") else {
            Issue.record("nan did not parse as a float")
            return
        }
        #expect(value.isNaN)
    }

    @Test(arguments: [
        ("a = 1\nb", 2, "expected '=' after key 'b'"),
        ("a =", 1, "expected a value"),
        ("= 1", 1, "expected a key"),
        ("a = 1 b = 2", 1, "expected the end of the line"),
        ("a.b = 1\na = 2", 2, "duplicate key 'a' (first set on line 1)"),
        ("x = 1\n\"x\" = 2", 2, "duplicate key 'x'"),
        ("[t]\n[t]", 2, "table [t] is defined twice (first on line 1)"),
        ("[t]\ns.u = 1\n[t.s]", 3, "already defined by dotted keys"),
        ("[a.b.c]\n[a]\nb.c.d = 1", 3, "cannot add to 'b.c' with a dotted key"),
        ("a = {b = 1}\na.c = 2", 2, "inline table"),
        ("a = {b = 1}\n[a]", 2, "cannot define table [a]"),
        ("a = []\n[[a]]", 2, "cannot append to [[a]]"),
        ("[[a]]\n[a]", 2, "is an array of tables"),
        ("[a]\n[[a]]", 2, "it is a table defined on line 1"),
        ("[a", 1, "expected ']'"),
        ("[[a]\n", 1, "expected ']]'"),
        ("[]", 1, "expected a key"),
        ("a = \"open\nb = 1", 1, "must end on the same line"),
        ("\n\na = \"\"\"never\nclosed", 3, "the multi-line string started on line 3 is never closed"),
        ("a = 'open", 1, "never closed"),
        ("a = [1,\n2\n3]", 3, "expected ',' or ']' in the array started on line 1"),
        ("a = [1,,2]", 1, "expected a value, found ','"),
        ("a = [\n1,\n", 3, "the array started on line 1 is not closed with ']'"),
        ("a = [1", 1, "the array started on line 1 is not closed with ']'"),
        ("a = {b = 1,}", 1, "trailing comma"),
        ("a = {b = 1\n}", 1, "must be closed with '}' on the same line"),
        ("a = \"\\q\"", 1, "invalid escape '\\q'"),
        ("a = \"\\uD800\"", 1, "is not a Unicode scalar value"),
        ("a = \"\\u12\"", 1, "\\u must be followed by 4 hex digits"),
        ("a = \"bell\u{07}\"", 1, "control character U+0007"),
        ("# bell \u{07}", 1, "control character U+0007 is not allowed in a comment"),
        ("a = 1\r", 1, "carriage return"),
        ("a = 012", 1, "leading zeros"),
        ("a = 1__0", 1, "is not a valid number"),
        ("a = 1.", 1, "is not a valid number"),
        ("a = .5", 1, ".5 is not a valid number"),
        ("a = -0x10", 1, "a sign is not allowed"),
        ("a = 0b102", 1, "is not a valid number"),
        ("a = 9223372036854775808", 1, "does not fit in a 64-bit number"),
        ("a = 1e999", 1, "does not fit in a 64-bit number"),
        ("a = yes", 1, "invalid value 'yes'; strings must be quoted"),
        ("a = 1979-05-27", 1, "date/time values such as '1979-05-27' are not supported"),
        ("a = 1979-05-27 07:32:00Z", 1, "'1979-05-27 07:32:00Z' are not supported"),
        ("a = 07:32:00", 1, "date/time values"),
        ("\"\"\"k\"\"\" = 1", 1, "a multi-line string cannot be a key"),
    ])
    func reportsInvalidSyntaxOnItsLine(text: String, line: Int, message: String) {
        let problems = TOMLParser.parse(text).problems
        #expect(problems.count == 1)
        #expect(problems.first?.line == line)
        #expect(problems.first?.message.contains(message) == true, "\(problems)")
    }

    @Test func keepsTheLineOfEveryKeyAndValue() {
        let text = """
            # comment
            [server]
            ports = [
              80,

              443,
            ]
            [[rule]]
            name = "a"
            [[rule]]
            """
        let root = TOMLParser.parse(text).root
        let server = root.entries[0]
        #expect(server.key == "server" && server.line == 2 && server.value.line == 2)
        guard case .table(let table) = server.value.kind, case .array(let ports) = table["ports"]?.kind else {
            Issue.record("unexpected tree \(Self.render(root))")
            return
        }
        #expect(table.entries[0].line == 3)
        #expect(ports.map(\.line) == [4, 6])
        guard case .array(let rules) = root["rule"]?.kind else {
            Issue.record("rule is not an array of tables")
            return
        }
        #expect(rules.map(\.line) == [8, 10])
    }

    @Test func collectsEveryProblemThatLeavesTheStructureReadable() {
        let text = """
            a = "\\q"
            b = 1__2
            c = 1979-05-27
            a = 2
            [t]
            [t]
            d = 3
            """
        let problems = TOMLParser.parse(text).problems
        #expect(problems.map(\.line) == [1, 2, 3, 4, 6])
    }

    @Test func stopsAtASyntaxErrorButKeepsWhatCameBefore() {
        let document = TOMLParser.parse("a = 1\nb = [1 2]\nc = 3\n")
        #expect(document.problems.map(\.line) == [2])
        #expect(Self.render(document.root) == "{a=1}")
    }

    @Test func refusesNestingDeepEnoughToExhaustTheStack() {
        let depth = TOMLParser.maximumNesting * 1_000
        let text = "a = " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let problems = TOMLParser.parse(text).problems
        #expect(problems.count == 1)
        #expect(problems.first?.message.contains("nested more than") == true)
    }

    @Test func acceptsNestingUpToTheLimit() {
        let depth = TOMLParser.maximumNesting
        let text = "a = " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(TOMLParser.parse(text).problems == [])
    }

    @Test func skipsAByteOrderMark() {
        #expect(Self.valueOfA("\u{FEFF}a = 1") == .integer(1))
    }
}

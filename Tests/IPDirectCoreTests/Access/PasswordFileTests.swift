import Testing
@testable import IPDirectCore

/// Reading `auth_file`: which htpasswd lines are users, which are refused and how the refusal reads.
@Suite struct PasswordFileTests {
    static let bcrypt = "$2y$05$Qh1ZHKNsbEnWCgKh7XN7OuCAgX3cySPBrBtvN3QD6/dLWgyQFXPdy"

    static func problems(_ text: String) -> [String] {
        guard case .failure(let error) = PasswordFile.parse(text) else { return [] }
        return error.problems.map(\.description)
    }

    @Test(arguments: [
        ("$2y$05$Qh1ZHKNsbEnWCgKh7XN7OuCAgX3cySPBrBtvN3QD6/dLWgyQFXPdy", PasswordHashScheme.bcrypt),
        ("$2b$05$Qh1ZHKNsbEnWCgKh7XN7OuCAgX3cySPBrBtvN3QD6/dLWgyQFXPdy", .bcrypt),
        ("$2a$05$Qh1ZHKNsbEnWCgKh7XN7OuCAgX3cySPBrBtvN3QD6/dLWgyQFXPdy", .bcrypt),
        ("$5$EjejHm4WTVT7Vc5p$rizeElc/Q9MGENPQfR7fvYIDcgwdQkHHlRzfXRayFk1", .sha256crypt),
        ("$5$rounds=10000$EjejHm4WTVT7Vc5p$rizeElc/Q9MGENPQfR7fvYIDcgwdQkHHlRzfXRayFk1", .sha256crypt),
        ("$6$IMGR8FJ44fOTLTuf$6khw5B8K8GSDEu8bLbv4P1JnoTc5L1E49upsoq5mBkaBukdopq25rhku.8fa8bDgOH03Dyuzf5QpKUADuF8iy0", .sha512crypt),
        ("$y$j9T$F5Jx5fExrKuPp53xLKQ..1$8c0O2L8gFA3jUVvwMFdXpZKM78kTwpdGJswaLb6IRr/", .yescrypt),
    ])
    func acceptsEveryHashCryptVerifies(hash: String, scheme: PasswordHashScheme) throws {
        let file = try PasswordFile.parse("alice:\(hash)\n").get()
        #expect(file.hashes == ["alice": hash])
        #expect(PasswordHashScheme(hash: hash[...]) == scheme)
    }

    @Test(arguments: [
        ("alice:s3cret", "line 1: user alice: plain-text or unsupported password hash; make it with htpasswd -B (bcrypt)"),
        ("alice:LgcKj4VzCPu9o", "line 1: user alice: plain-text or unsupported password hash; make it with htpasswd -B (bcrypt)"),
        ("alice:{SHA}EfatjsUqKYSrqv18O1FlA3hcIHI=",
         "line 1: user alice: {SHA} (unsalted SHA-1) password hash is not accepted; make it with htpasswd -B (bcrypt)"),
        ("alice:$apr1$fi.7Qf.w$DScrYInkP6T/ahmgVct2g.",
         "line 1: user alice: $apr1$ (Apache MD5) password hash is not accepted; make it with htpasswd -B (bcrypt)"),
        ("alice:$1$saltsalt$qjXMvbEw8oaL.CzflDugX/",
         "line 1: user alice: $1$ (MD5-crypt) password hash is not accepted; make it with htpasswd -B (bcrypt)"),
        ("alice:", "line 1: user alice: plain-text or unsupported password hash; make it with htpasswd -B (bcrypt)"),
        ("alice:$2y$05$Qh1ZHKNsbEnWCgKh7XN7Ou", "line 1: user alice: damaged bcrypt hash; make it with htpasswd -B (bcrypt)"),
        ("alice:$2y$05$Qh1ZHKNsbEnWCgKh7XN7OuCAgX3cySPBrBtvN3QD6/dLWgyQFXPd!",
         "line 1: user alice: damaged bcrypt hash; make it with htpasswd -B (bcrypt)"),
        ("alice:$6$onlysalt", "line 1: user alice: damaged sha512-crypt hash; make it with htpasswd -B (bcrypt)"),
        ("alice:$y$j9T$salt$", "line 1: user alice: damaged yescrypt hash; make it with htpasswd -B (bcrypt)"),
        ("alice", "line 1: not user:hash"),
        (":\(bcrypt)", "line 1: empty user name"),
        ("ali\u{7}ce:\(bcrypt)", "line 1: user name with control characters"),
    ])
    func refusesWhatCryptCannotVerifyOrShouldNotBeTrustedNamingLineAndUser(line: String, message: String) {
        #expect(Self.problems(line + "\n") == [message])
    }

    @Test func refusalsNeverRepeatTheHash() {
        let secretLooking = "$apr1$fi.7Qf.w$DScrYInkP6T/ahmgVct2g."
        let problems = Self.problems("bob:\(secretLooking)\ncarol:plaintextpassword\n")
        #expect(problems.count == 2)
        #expect(!problems.contains { $0.contains("DScrYInkP6T") || $0.contains("plaintextpassword") })
    }

    @Test func skipsCommentsAndBlankLinesAndCountsThemInLineNumbers() {
        let text = "# users of the office proxy\n\n   \nalice:\(Self.bcrypt)\n\t\n#bob:plain\ncarol:plain\n"
        #expect(Self.problems(text) == [
            "line 7: user carol: plain-text or unsupported password hash; make it with htpasswd -B (bcrypt)",
        ])
    }

    @Test func readsCRLFLineEndsAsLF() throws {
        let file = try PasswordFile.parse("# made on Windows\r\nalice:\(Self.bcrypt)\r\n\r\nbob:\(Self.bcrypt)").get()
        #expect(file.hashes == ["alice": Self.bcrypt, "bob": Self.bcrypt])
    }

    @Test func ignoresFieldsAfterASecondColonAsApacheDoes() throws {
        let file = try PasswordFile.parse("alice:\(Self.bcrypt):Alice Liddell\n").get()
        #expect(file.hashes == ["alice": Self.bcrypt])
    }

    @Test func refusesAUserListedTwiceNamingTheFirstLine() {
        let text = "alice:\(Self.bcrypt)\nbob:\(Self.bcrypt)\nalice:\(Self.bcrypt)\n"
        #expect(Self.problems(text) == ["line 3: user alice is listed twice (first on line 1)"])
    }

    @Test func reportsEveryRefusedLineInOrder() {
        let text = "alice:plain\nbob:\(Self.bcrypt)\nnocolon\ncarol:{SHA}x\n"
        #expect(Self.problems(text).map { $0.prefix(while: { $0 != ":" }) } == ["line 1", "line 3", "line 4"])
    }

    @Test func anEmptyFileHasNoUsers() throws {
        #expect(try PasswordFile.parse("").get().hashes.isEmpty)
        #expect(try PasswordFile.parse("# nobody yet\n").get().hashes.isEmpty)
    }

    @Test func theDecoyHashHasTheCostMostUsersHave() {
        let cost12 = "$2y$12$Qh1ZHKNsbEnWCgKh7XN7OuCAgX3cySPBrBtvN3QD6/dLWgyQFXPdy"
        let cost05 = "$2b$05$Rh1ZHKNsbEnWCgKh7XN7OuCAgX3cySPBrBtvN3QD6/dLWgyQFXPdy"
        let sha512 = "$6$rounds=9000$saltsalt$" + String(repeating: "a", count: 86)
        let file = PasswordFile(hashes: ["alice": cost12, "bob": Self.bcrypt, "carol": cost05, "dave": sha512])
        #expect(file.decoyHash == Self.bcrypt)
        #expect(PasswordFile(hashes: ["dave": sha512, "erin": sha512 + "b", "bob": Self.bcrypt]).decoyHash == sha512)
    }

    @Test func costSettingsIgnoreSaltAndVariant() {
        let table: [(String, String)] = [
            ("$2y$12$Qh1ZHKNsbEnWCgKh7XN7OuCAgX3cySPBrBtvN3QD6/dLWgyQFXPdy", "bcrypt 12"),
            ("$2a$12$Zh1ZHKNsbEnWCgKh7XN7OuCAgX3cySPBrBtvN3QD6/dLWgyQFXPdy", "bcrypt 12"),
            ("$6$rounds=9000$salt$hash", "sha512-crypt rounds=9000"),
            ("$5$salt$hash", "sha256-crypt default rounds"),
            ("$y$j9T$salt$hash", "yescrypt j9T"),
        ]
        for (hash, setting) in table {
            #expect(PasswordHashScheme.costSetting(of: hash) == setting, "\(hash)")
        }
    }

    @Test func aFileWithoutUsersHasNoDecoy() {
        #expect(PasswordFile(hashes: [:]).decoyHash == nil)
    }
}

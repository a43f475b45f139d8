import Testing
@testable import IPDirectCore

/// The `[tls]` section's pins and unverified hosts, with every problem on its line.
@Suite struct TLSSettingsTests {
    /// Base64 SHA-256 digests of two Ed25519 SubjectPublicKeyInfos, made with openssl.
    static let digest = "1jmGGO921lcMF/9Y49HgGOu5rElGk+kCR16QmmFevvA="
    static let backupDigest = "BWSpCACeoGbHqOvrZW4IWRXQfqum4Tbxl384FBh8xaY="

    static func tls(_ text: String) throws -> TLSSettings {
        try Config.parse(text).get().tls
    }

    static func diagnostics(_ text: String) -> [ConfigDiagnostic] {
        guard case .failure(let error) = Config.parse(text) else { return [] }
        return error.diagnostics
    }

    @Test func readsPinsByNormalisedHostName() throws {
        let tls = try Self.tls("""
            [tls]
            ca_file = "ca.pem"

            [[tls.pin]]
            host = "API.Example.com."
            spki_sha256 = ["\(Self.digest)", "\(Self.backupDigest)"]

            [[tls.pin]]
            host = "b.example"
            spki_sha256 = ["\(Self.backupDigest)"]
            """)
        #expect(tls.caFile == "ca.pem")
        #expect(tls.pins == ["api.example.com": [Self.digest, Self.backupDigest], "b.example": [Self.backupDigest]])
    }

    @Test func readsPinsWrittenAsInlineTables() throws {
        let tls = try Self.tls("[tls]\npin = [{ host = \"a.example\", spki_sha256 = [\"\(Self.digest)\"] }]")
        #expect(tls.pins == ["a.example": [Self.digest]])
    }

    @Test func readsPinsWithoutATLSHeader() throws {
        let tls = try Self.tls("[[tls.pin]]\nhost = \"a.example\"\nspki_sha256 = [\"\(Self.digest)\"]")
        #expect(tls.pins == ["a.example": [Self.digest]])
    }

    @Test func treatsKeysAfterAPinAsPartOfThatPin() {
        let text = "[[tls.pin]]\nhost = \"a.example\"\nspki_sha256 = [\"\(Self.digest)\"]\nca_file = \"ca.pem\""
        #expect(Self.diagnostics(text) == [
            ConfigDiagnostic(line: 4, message: "pin: unknown key 'ca_file' in [[tls.pin]]"),
        ])
    }

    @Test func readsTLSKeysUnderATLSHeaderAfterThePins() throws {
        let tls = try Self.tls("[[tls.pin]]\nhost = \"a.example\"\nspki_sha256 = [\"\(Self.digest)\"]\n[tls]\nca_file = \"ca.pem\"")
        #expect(tls.caFile == "ca.pem")
        #expect(tls.pins == ["a.example": [Self.digest]])
    }

    @Test(arguments: [
        ("\"a\"", "'a' is not base64: its length 1 is not a multiple of 4 (is the = padding missing?)"),
        ("\"1jmGGO921lcMF/9Y49HgGOu5rElGk+kCR16QmmFevvA\"",
         "'1jmGGO921lcMF/9Y49HgGOu5rElGk+kCR16QmmFevvA' is not base64: its length 43 is not a multiple of 4 (is the = padding missing?)"),
        ("\"1jmGGO921lcMF_9Y49HgGOu5rElGk-kCR16QmmFevvA=\"",
         "'1jmGGO921lcMF_9Y49HgGOu5rElGk-kCR16QmmFevvA=' is not base64: '_' is not a base64 character"),
        ("\"1jmGGO921lcMF/9Y49HgGOu5rElGk+kCR16QmmFevvB=\"",
         "'1jmGGO921lcMF/9Y49HgGOu5rElGk+kCR16QmmFevvB=' is not base64: its last character is not the canonical one for these bytes"),
        ("\"EfatjsUqKYSrqv18O1FlA3hcIHI=\"", "'EfatjsUqKYSrqv18O1FlA3hcIHI=' is 20 bytes in base64; a SHA-256 digest is 32"),
        ("\"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881\"",
         "'2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881' looks like a hexadecimal digest; write it in base64 (openssl dgst -sha256 -binary | base64)"),
        ("\"sha256//1jmGGO921lcMF/9Y49HgGOu5rElGk+kCR16QmmFevvA=\"",
         "'sha256//1jmGGO921lcMF/9Y49HgGOu5rElGk+kCR16QmmFevvA=': write the base64 digest alone, without curl's sha256// prefix"),
        ("42", "expected a string, found an integer"),
    ])
    func refusesADigestThatIsNotTheBase64OfThirtyTwoBytes(written: String, message: String) {
        let text = "[[tls.pin]]\nhost = \"a.example\"\nspki_sha256 = [\n  \(written),\n]"
        #expect(Self.diagnostics(text) == [ConfigDiagnostic(line: 4, message: "pin: spki_sha256: \(message)")])
    }

    @Test func requiresAHostAndAtLeastOneDigestInEveryPin() {
        let text = """
            [[tls.pin]]
            spki_sha256 = ["\(Self.digest)"]

            [[tls.pin]]
            host = "a.example"

            [[tls.pin]]
            host = "b.example"
            spki_sha256 = []
            """
        #expect(Self.diagnostics(text) == [
            ConfigDiagnostic(line: 1, message: "pin: [[tls.pin]] has no host"),
            ConfigDiagnostic(line: 4, message: "pin: [[tls.pin]] has no spki_sha256"),
            ConfigDiagnostic(line: 9, message: "pin: spki_sha256: must list at least one value"),
        ])
    }

    @Test func refusesTheSameHostPinnedTwice() {
        let text = """
            [[tls.pin]]
            host = "a.example"
            spki_sha256 = ["\(Self.digest)"]

            [[tls.pin]]
            host = "A.EXAMPLE."
            spki_sha256 = ["\(Self.backupDigest)"]
            """
        #expect(Self.diagnostics(text) == [
            ConfigDiagnostic(line: 6, message: "pin: 'a.example' is pinned twice (first on line 2)"),
        ])
    }

    @Test(arguments: [
        ("[tls.pin]\nhost = \"a.example\"", 1, "pin: write each pin as a [[tls.pin]] table, with double brackets"),
        ("[tls]\npin = [\"a.example\"]", 2, "pin: expected a [[tls.pin]] table, found a string"),
        ("[[tls.pin]]\nhots = \"a.example\"\nhost = \"a.example\"\nspki_sha256 = [\"\(digest)\"]", 2,
         "pin: unknown key 'hots' in [[tls.pin]]"),
        ("[[tls.pin]]\nhost = \"a.example\"\nspki_sha256 = [\"\(digest)\"]\n[tls.pin.extra]\nx = 1", 4,
         "pin: unknown section [tls.pin.extra]"),
        ("[[tls.pin]]\nhost = \"192.0.2.1\"\nspki_sha256 = [\"\(digest)\"]", 2,
         "pin: host: '192.0.2.1' is an IP address, not a host name"),
        ("[[tls.pin]]\nhost = \"*.example.net\"\nspki_sha256 = [\"\(digest)\"]", 2,
         "pin: host: '*.example.net': wildcards are not allowed here; name each host"),
        ("[[tls.pin]]\nhost = \"a.example\"\nspki_sha256 = [\"\(digest)\", \"\(digest)\"]", 3,
         "pin: spki_sha256: \(digest) is listed twice (first on line 3)"),
    ])
    func reportsMalformedPinsOnTheirLines(text: String, line: Int, message: String) {
        #expect(Self.diagnostics(text) == [ConfigDiagnostic(line: line, message: message)])
    }

    @Test func readsInsecureHostsAsNormalisedNames() throws {
        let tls = try Self.tls("[tls]\ninsecure_hosts = [\"Lab.Example.\", \"printer.lan\"]")
        #expect(tls.insecureHosts == ["lab.example", "printer.lan"])
    }

    @Test(arguments: [
        ("[\"192.0.2.1\"]", 2, "insecure_hosts: '192.0.2.1' is an IP address, not a host name"),
        ("[\"*.example.net\"]", 2, "insecure_hosts: '*.example.net': wildcards are not allowed here; name each host"),
        ("[\"*\"]", 2, "insecure_hosts: '*': wildcards are not allowed here; name each host"),
        ("[\"lab_1.example\"]", 2,
         "insecure_hosts: 'lab_1.example' is not a host name: only letters, digits, hyphens and dots are allowed"),
        ("[\n  \"lab.example\",\n  \"LAB.example\",\n]", 4, "insecure_hosts: lab.example is listed twice (first on line 3)"),
        ("true", 2, "insecure_hosts: expected an array, found a boolean"),
    ])
    func acceptsOnlyExactHostNamesAsInsecure(value: String, line: Int, message: String) {
        #expect(Self.diagnostics("[tls]\ninsecure_hosts = \(value)") == [ConfigDiagnostic(line: line, message: message)])
    }

    @Test func refusesAHostThatIsBothPinnedAndInsecure() {
        let text = """
            [tls]
            insecure_hosts = [
              "lab.example",
              "A.example",
            ]

            [[tls.pin]]
            host = "a.example"
            spki_sha256 = ["\(Self.digest)"]
            """
        #expect(Self.diagnostics(text) == [
            ConfigDiagnostic(line: 4, message: "insecure_hosts: 'a.example' is also pinned in [[tls.pin]]; a pinned host is always verified"),
        ])
    }
}

import Glibc
import IPDirectCore
import Testing
@testable import IPDirectIO

/// Reading `auth_file` from disk, as startup, `ipdirect check` and SIGHUP do.
@Suite struct PasswordFileReaderTests {
    static func write(_ text: String) -> String {
        var template = Array("/tmp/ipdirect-htpasswd-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        return path
    }

    @Test func readsTheUsersOfAFileHtpasswdWrote() throws {
        let hash = try CryptWorkspaceTests.htpasswd("B")
        let path = Self.write("# proxy users\r\nalice:\(hash)\r\n")
        defer { unlink(path) }
        #expect(try PasswordFileReader.load(path: path).get().hashes == ["alice": hash])
    }

    @Test func reportsEachRefusedLineWithTheFileAndLine() {
        let path = Self.write("alice:plain\nbob:{SHA}EfatjsUqKYSrqv18O1FlA3hcIHI=\n")
        defer { unlink(path) }
        guard case .failure(let error) = PasswordFileReader.load(path: path) else {
            Issue.record("plain-text and {SHA} entries were accepted")
            return
        }
        #expect(error.formatted(file: "htpasswd") == """
            htpasswd:1: user alice: plain-text or unsupported password hash; make it with htpasswd -B (bcrypt)
            htpasswd:2: user bob: {SHA} (unsalted SHA-1) password hash is not accepted; make it with htpasswd -B (bcrypt)
            """)
    }

    @Test func aMissingFileIsAProblemOfNoLine() {
        guard case .failure(let error) = PasswordFileReader.load(path: "/nonexistent/ipdirect-htpasswd") else {
            Issue.record("a missing file was read")
            return
        }
        #expect(error.diagnostics == [ConfigDiagnostic(line: 0, message: "cannot open: No such file or directory")])
    }
}

import Glibc
import Testing
@testable import IPDirectIO

/// crypt(3) against real hashes: made by `htpasswd` (apache2-utils) at test time, and a yescrypt hash made
/// once with libxcrypt (htpasswd cannot make one).
@Suite struct CryptWorkspaceTests {
    static let password = "correct horse"

    /// `htpasswd -nb<flag> user password` prints `user:hash` and a blank line.
    static func htpasswd(_ flag: String, user: String = "alice", password: String = CryptWorkspaceTests.password) throws -> String {
        let pipe = try #require(popen("htpasswd -nb\(flag) \(user) '\(password)' 2>/dev/null", "r"))
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while case let count = fread(&chunk, 1, chunk.count, pipe), count > 0 {
            bytes += chunk.prefix(count)
        }
        let output = String(decoding: bytes, as: UTF8.self)
        #expect(pclose(pipe) == 0, "htpasswd (apache2-utils) must be installed")
        let line = try #require(output.split(separator: "\n").first)
        return String(try #require(line.split(separator: ":", maxSplits: 1).last))
    }

    /// "s3cret" with libxcrypt's yescrypt (`$y$j9T$`, its default cost), made once.
    static let yescryptOfS3cret = "$y$j9T$F5Jx5fExrKuPp53xLKQ..1$8c0O2L8gFA3jUVvwMFdXpZKM78kTwpdGJswaLb6IRr/"

    @Test(arguments: ["B", "2", "5"])
    func acceptsTheRightPasswordAndNoOtherForHashesHtpasswdMakes(flag: String) throws {
        let hash = try Self.htpasswd(flag)
        let workspace = CryptWorkspace()
        #expect(workspace.matches(password: Self.password, hash: hash))
        #expect(!workspace.matches(password: "correct horsf", hash: hash))
        #expect(!workspace.matches(password: "", hash: hash))
        #expect(workspace.matches(password: Self.password, hash: hash))
    }

    /// `$2y$` (htpasswd), `$2b$` (OpenBSD, Python) and `$2a$` are one algorithm for ASCII passwords.
    @Test(arguments: ["$2b$", "$2a$"])
    func readsEveryBcryptPrefix(prefix: String) throws {
        let hash = prefix + (try Self.htpasswd("B")).dropFirst(prefix.count)
        #expect(CryptWorkspace().matches(password: Self.password, hash: hash))
    }

    @Test func verifiesYescrypt() {
        let workspace = CryptWorkspace()
        #expect(workspace.matches(password: "s3cret", hash: Self.yescryptOfS3cret))
        #expect(!workspace.matches(password: "s3cret!", hash: Self.yescryptOfS3cret))
    }

    @Test func aPasswordWithANulByteIsNotCheckedAsItsPrefix() throws {
        let hash = try Self.htpasswd("B", password: "pass")
        #expect(!CryptWorkspace().matches(password: "pass\0word", hash: hash))
    }

    @Test func aHashCryptCannotUseMatchesNothing() {
        let workspace = CryptWorkspace()
        #expect(!workspace.matches(password: "", hash: "*0"))
        #expect(!workspace.matches(password: "x", hash: "$2y$05$short"))
        #expect(!workspace.matches(password: "plain", hash: "plain"))
    }
}

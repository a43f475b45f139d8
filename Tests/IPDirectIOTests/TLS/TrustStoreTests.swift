import Glibc
import IPDirectCore
import Testing
@testable import IPDirectIO

/// The trust store is loaded when the daemon starts, even though the TLS context that uses it is made by the
/// first connection that needs one: a CA file OpenSSL cannot read must stop the start, not a later request.
@Suite struct TrustStoreTests {
    @Test func aCAFileWithoutCertificatesStopsTheStart() throws {
        let path = PasswordFileReaderTests.write("not a certificate\n")
        defer { unlink(path) }
        let config = try Config.parse("""
            [proxy]
            workers = 1
            listen = ["127.0.0.1:0"]
            access_log = "off"
            [resolver]
            order = ["hosts"]
            [tls]
            ca_file = "\(path)"
            [admin]
            listen = []
            """).get()
        #expect {
            _ = try Server(config: config)
        } throws: { error in
            "\(error)".contains("cannot load trusted CAs from tls.ca_file \(path)")
        }
    }
}

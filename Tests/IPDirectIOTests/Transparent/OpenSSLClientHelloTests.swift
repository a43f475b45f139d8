import CEvent
import IPDirectCore
import Testing

/// The ClientHellos OpenSSL sends, as a program behind the transparent listener would, are read for their
/// server name: TLS 1.3 with its default key shares, and one made long with many ALPN names.
@Suite struct OpenSSLClientHelloTests {
    /// The first flight of an OpenSSL client asking for `serverName` (none when nil).
    static func clientHello(serverName: String?, alpnNames: Int = 0) throws -> [UInt8] {
        guard let context = SSL_CTX_new(TLS_client_method()), let ssl = SSL_new(context) else {
            throw OpenSSLHelloError("no SSL object")
        }
        defer { SSL_free(ssl); SSL_CTX_free(context) }
        if alpnNames > 0 {
            var protocols: [UInt8] = []
            for index in 0..<alpnNames {
                let name = Array("protocol-\(index)-".utf8) + Array(repeating: UInt8(ascii: "x"), count: 200)
                protocols += [UInt8(name.count)] + name
            }
            guard SSL_set_alpn_protos(ssl, protocols, UInt32(protocols.count)) == 0 else { throw OpenSSLHelloError("ALPN refused") }
        }
        if let serverName { _ = ipd_SSL_set_tlsext_host_name(ssl, serverName) }
        guard let incoming = BIO_new(BIO_s_mem()), let outgoing = BIO_new(BIO_s_mem()) else { throw OpenSSLHelloError("no BIO") }
        SSL_set_bio(ssl, incoming, outgoing)
        _ = SSL_connect(ssl)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let read = BIO_read(outgoing, &chunk, Int32(chunk.count))
            guard read > 0 else { break }
            bytes += chunk[..<Int(read)]
        }
        return bytes
    }

    struct OpenSSLHelloError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test func readsTheServerNameOfOpenSSLsClientHello() throws {
        let hello = try Self.clientHello(serverName: "origin.test")
        #expect(hello.withUnsafeBytes { FirstBytesKind.of($0) } == .tls)
        #expect(hello.withUnsafeBytes { ClientHelloReader.read($0) } == .serverName("origin.test"))
        #expect(hello.withUnsafeBytes { ClientHelloReader.read(UnsafeRawBufferPointer(rebasing: $0[..<100])) } == .incomplete)
    }

    @Test func aLongClientHelloIsReadWhole() throws {
        let hello = try Self.clientHello(serverName: "long.test", alpnNames: 12)
        #expect(hello.count > 2_500)
        #expect(hello.withUnsafeBytes { ClientHelloReader.read($0) } == .serverName("long.test"))
    }

    @Test func aClientHelloWithoutServerNameHasNone() throws {
        let hello = try Self.clientHello(serverName: nil)
        #expect(hello.withUnsafeBytes { ClientHelloReader.read($0) } == .noServerName)
    }
}

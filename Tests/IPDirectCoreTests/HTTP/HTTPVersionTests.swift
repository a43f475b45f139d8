import Testing
@testable import IPDirectCore

@Suite struct HTTPVersionTests {
    private func parsed(_ text: String) -> String {
        let bytes = Array(text.utf8)
        switch bytes.withUnsafeBytes({ HTTPVersion.parse($0, 0..<$0.count) }) {
        case .known(let version): return version.description
        case .unsupported: return "unsupported"
        case .malformed: return "malformed"
        }
    }

    @Test func theWordsComparedFirstSpellTheTwoVersions() {
        let load = { (text: String) in
            Array(text.utf8).withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        }
        #expect(HTTPVersion.http11Word == load("HTTP/1.1"))
        #expect(HTTPVersion.http10Word == load("HTTP/1.0"))
    }

    @Test(arguments: [
        ("HTTP/1.1", "HTTP/1.1"), ("HTTP/1.0", "HTTP/1.0"), ("HTTP/1.2", "unsupported"), ("HTTP/2.0", "unsupported"),
        ("HTTP/0.9", "unsupported"), ("http/1.1", "malformed"), ("HTTP/1,1", "malformed"), ("HTTP/1.x", "malformed"),
        ("HTTP/1.1 ", "malformed"), ("HTTP/1.", "malformed"), ("HTTQ/1.1", "malformed"), ("HTTP/11.", "malformed"),
    ])
    func readsAVersionCaseSensitivelyAndExactly(text: String, expected: String) {
        #expect(parsed(text) == expected)
    }
}

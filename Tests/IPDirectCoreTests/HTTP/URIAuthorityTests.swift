import Testing
@testable import IPDirectCore

@Suite struct URIAuthorityTests {
    @Test(arguments: [
        "a.test", "A.Test:8080", "a.test.", "[::1]:443", "[2001:DB8::1]", "192.0.2.1:80", "", "u@a.test", "a..test",
        "127.1", "0x7f.0.0.1", "[v1.x]", "[::1", "a.test:", "a.test:0", "a.test:65536", "a.test:123456", "a test",
        "a.test:8x", ":80", String(repeating: "a", count: 254),
    ])
    func checksExactlyAsParsingDoes(authority: String) {
        for portRequired in [false, true] {
            let bytes = Array(authority.utf8)
            let parsed = bytes.withUnsafeBytes { URIAuthority.parse($0, 0..<$0.count, portRequired: portRequired) }
            let checked = bytes.withUnsafeBytes { URIAuthority.check($0, 0..<$0.count, portRequired: portRequired) }
            switch parsed {
            case .success: #expect(checked == nil)
            case .failure(let failure): #expect(checked == failure)
            }
        }
    }

    @Test(arguments: ["u@a.test", "u:p@a.test:80", "a.test:8@0", "[::1]@x", "@", "a.test@"])
    func refusesUserinfoWhereverTheAtSignIs(authority: String) {
        let bytes = Array(authority.utf8)
        #expect(bytes.withUnsafeBytes { URIAuthority.check($0, 0..<$0.count, portRequired: false) } == .userinfo)
    }
}

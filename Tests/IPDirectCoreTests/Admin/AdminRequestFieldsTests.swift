import Testing
@testable import IPDirectCore

/// The Host, Origin and marker fields read out of a parsed admin request head.
@Suite struct AdminRequestFieldsTests {
    func fields(_ text: String) -> AdminRequestFields? {
        let raw = RawHead(text)
        guard let head = raw.request() else { return nil }
        return raw.bytes.withUnsafeBytes { AdminRequestFields(head, in: $0) }
    }

    @Test func readsHostOriginAndTheMarkerWhateverTheFieldNamesCase() {
        let read = fields("POST /cache/flush HTTP/1.1\r\nhost: 127.0.0.1:8081\r\nORIGIN: http://evil.example\r\n"
            + "\(AdminRequestFields.markerName.lowercased()): \(AdminRequestFields.markerValue)\r\n\r\n")
        #expect(read == AdminRequestFields(host: "127.0.0.1:8081", origins: ["http://evil.example"], hasMarker: true))
    }

    @Test func readsTheMarkerUnderItsDocumentedName() {
        let read = fields("POST / HTTP/1.1\r\nHost: a\r\n\(AdminRequestFields.markerName): \(AdminRequestFields.markerValue)\r\n\r\n")
        #expect(read?.hasMarker == true)
    }

    @Test(arguments: ["0", "true", "yes", "11", "1, 1", ""])
    func theMarkerCountsOnlyWithTheValueOne(value: String) {
        let read = fields("POST / HTTP/1.1\r\nHost: a\r\nX-IPDirect-Admin: \(value)\r\n\r\n")
        #expect(read?.hasMarker == false)
    }

    @Test func keepsEveryOriginInOrder() {
        let read = fields("POST / HTTP/1.1\r\nHost: a\r\nOrigin: http://a\r\nOrigin: null\r\n\r\n")
        #expect(read?.origins == ["http://a", "null"])
    }

    @Test func anHTTP10RequestMayHaveNoHost() {
        let read = fields("GET /healthz HTTP/1.0\r\n\r\n")
        #expect(read == AdminRequestFields(host: nil, origins: [], hasMarker: false))
    }
}

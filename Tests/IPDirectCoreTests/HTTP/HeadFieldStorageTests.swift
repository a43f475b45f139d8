import Testing
@testable import IPDirectCore

@Suite struct HeadFieldStorageTests {
    private static let first = RawHead("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nA: 1\r\nB: 2\r\n\r\n")
    private static let second = RawHead("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nServer: s\r\n\r\n")

    private func parseRequest(_ raw: RawHead, into storage: inout [HeaderField]) -> RequestHead? {
        guard case .complete(let head) = raw.bytes.withUnsafeBytes({
            RequestHeadParser.parse($0, limits: HTTPHeadLimits(), fieldStorage: &storage)
        }) else { return nil }
        return head
    }

    private func parseResponse(_ raw: RawHead, into storage: inout [HeaderField]) -> ResponseHead? {
        guard case .complete(let head) = raw.bytes.withUnsafeBytes({
            ResponseHeadParser.parse($0, requestMethod: .get, limits: HTTPHeadLimits(), fieldStorage: &storage)
        }) else { return nil }
        return head
    }

    @Test func parsesTheSameHeadsWithStorageAsWithout() {
        var storage: [HeaderField] = []
        #expect(parseRequest(Self.first, into: &storage)?.fields == Self.first.request()?.fields)
        #expect(parseResponse(Self.second, into: &storage)?.fields == Self.second.response()?.fields)
    }

    @Test func reusesTheStorageOnceTheEarlierHeadIsGone() {
        var storage: [HeaderField] = []
        let firstCount = parseRequest(Self.first, into: &storage)?.fields.count
        let address = storage.withUnsafeBufferPointer { $0.baseAddress }
        let secondCount = parseResponse(Self.second, into: &storage)?.fields.count
        #expect(firstCount == 3 && secondCount == 2)
        #expect(storage.withUnsafeBufferPointer { $0.baseAddress } == address)
    }

    @Test func leavesTheFieldsOfAHeadStillHeldUnchanged() {
        var storage: [HeaderField] = []
        guard let held = parseRequest(Self.first, into: &storage) else {
            Issue.record("the request did not parse")
            return
        }
        let before = held.fields
        _ = parseResponse(Self.second, into: &storage)
        #expect(held.fields == before)
        #expect(Self.first.fieldTexts(held.fields) == ["Host: a.test", "A: 1", "B: 2"])
    }
}

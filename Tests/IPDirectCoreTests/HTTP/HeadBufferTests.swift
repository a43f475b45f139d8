import Testing
@testable import IPDirectCore

@Suite struct HeadBufferTests {
    private func text(_ buffer: HeadBuffer) -> String { String(decoding: buffer.bytes, as: UTF8.self) }

    private func write(_ response: String, into buffer: inout HeadBuffer, persistence: ResponsePersistence = .persistent) {
        let raw = RawHead(response)
        guard let head = raw.response() else { return }
        raw.bytes.withUnsafeBytes {
            HeadRewriter.clientResponse(head, in: $0, viaName: "ipdirect", keepUpgrade: false, persistence: persistence,
                                        into: &buffer)
        }
    }

    private func storageAddress(_ buffer: HeadBuffer) -> UnsafeRawPointer? { buffer.withUnsafeBytes { $0.baseAddress } }

    @Test func aShorterHeadAfterALongerOneHoldsOnlyItsOwnBytes() {
        var buffer = HeadBuffer()
        write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nSet-Cookie: a-long-cookie-value\r\nETag: \"x\"\r\n\r\n", into: &buffer)
        write("HTTP/1.1 204 No Content\r\n\r\n", into: &buffer)
        #expect(text(buffer) == "HTTP/1.1 204 No Content\r\nVia: 1.1 ipdirect\r\n\r\n")
        #expect(buffer.count == buffer.bytes.count)
    }

    @Test func theNextHeadIsWrittenIntoTheSameStorage() {
        var buffer = HeadBuffer()
        write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", into: &buffer)
        let first = storageAddress(buffer)
        write("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\n", into: &buffer)
        #expect(first != nil && storageAddress(buffer) == first)
        #expect(text(buffer) == "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nVia: 1.1 ipdirect\r\n\r\n")
    }

    @Test func aCopyKeepsItsHeadWhenTheBufferIsWrittenAgain() {
        var buffer = HeadBuffer()
        write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", into: &buffer)
        let kept = buffer
        write("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n", into: &buffer)
        #expect(text(kept) == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nVia: 1.1 ipdirect\r\n\r\n")
        #expect(storageAddress(kept) != storageAddress(buffer))
    }

    @Test func aHeadLargerThanTheStorageGrowsIt() {
        var buffer = HeadBuffer()
        write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", into: &buffer)
        let cookie = String(repeating: "c", count: 3 * HeadBuffer.minimumCapacity)
        write("HTTP/1.1 200 OK\r\nSet-Cookie: \(cookie)\r\nContent-Length: 5\r\n\r\n", into: &buffer, persistence: .close)
        #expect(text(buffer) == "HTTP/1.1 200 OK\r\nSet-Cookie: \(cookie)\r\nContent-Length: 5\r\nVia: 1.1 ipdirect\r\nConnection: close\r\n\r\n")
    }

    @Test func buffersAreEqualWhenTheirHeadsAre() {
        var longer = HeadBuffer()
        write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: \"abc\"\r\n\r\n", into: &longer)
        write("HTTP/1.1 204 No Content\r\n\r\n", into: &longer)
        var fresh = HeadBuffer()
        write("HTTP/1.1 204 No Content\r\n\r\n", into: &fresh)
        #expect(longer == fresh)
        #expect(longer != HeadBuffer())
        #expect(HeadBuffer(Array("a".utf8)) == HeadBuffer(Array("a".utf8)))
    }
}

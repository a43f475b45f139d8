import Testing
import IPDirectCore
@testable import IPDirectIO

@Suite struct HTTP1ResponseReaderTests {
    /// Feeds `text` one byte at a time, as the slowest server would, then EOF if `close`.
    static func read(_ text: String, close: Bool = false, limit: Int = ProviderAnswerLimits.maximumBodySize)
        -> HTTP1ResponseReader.Progress
    {
        var reader = HTTP1ResponseReader(requestMethod: .get, bodyLimit: limit)
        for byte in text.utf8 {
            let progress = reader.receive([byte])
            if progress != .needMore { return progress }
        }
        return close ? reader.receiveEnd() : .needMore
    }

    static func complete(_ body: String, status: Int = 200, contentType: String? = nil, reusable: Bool)
        -> HTTP1ResponseReader.Progress
    {
        .complete(HTTPDNSResponse(status: status, contentType: contentType, body: Array(body.utf8), protocolName: "http/1.1"),
                  reusable: reusable)
    }

    @Test func readsAContentLengthBodyArrivingByteByByte() {
        #expect(Self.read("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nContent-Length: 3\r\n\r\nabc")
            == Self.complete("abc", contentType: "text/plain", reusable: true))
    }

    @Test func skipsAnInterimResponse() {
        #expect(Self.read("HTTP/1.1 103 Early Hints\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx")
            == Self.complete("x", reusable: true))
    }

    @Test func readsUntilCloseWithoutLength() {
        #expect(Self.read("HTTP/1.1 200 OK\r\n\r\nall of it", close: true) == Self.complete("all of it", reusable: false))
    }

    @Test func honoursConnectionClose() {
        #expect(Self.read("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n") == Self.complete("", reusable: false))
    }

    @Test func refusesADeclaredLengthOverTheLimitBeforeReadingIt() {
        #expect(Self.read("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n", limit: 10) == .failed(.bodyTooLarge(limit: 10)))
    }

    @Test func refusesAChunkedBodyGrowingOverTheLimit() {
        #expect(Self.read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\nabcdef\r\n", limit: 10)
            == .failed(.bodyTooLarge(limit: 10)))
    }

    @Test func refusesAnUntilCloseBodyGrowingOverTheLimit() {
        #expect(Self.read("HTTP/1.1 200 OK\r\n\r\n0123456789a", limit: 10) == .failed(.bodyTooLarge(limit: 10)))
    }

    @Test func reportsACloseInsideTheBody() {
        guard case .failed(.connectionClosed) = Self.read("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", close: true) else {
            Issue.record("a truncated body must fail")
            return
        }
    }

    @Test func bytesAfterTheBodyMakeTheConnectionUnusable() {
        var reader = HTTP1ResponseReader(requestMethod: .get)
        let progress = reader.receive(Array("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxHTTP/1.1".utf8))
        #expect(progress == Self.complete("x", reusable: false))
    }
}

import CEvent
import Glibc
import IPDirectCore
import Testing
@testable import IPDirectIO
import IPDirectTesting

/// A head the proxy built and the body bytes behind it reach the peer whole and in order, whether the socket
/// takes them at once, takes part of them, or already has bytes queued ahead of them.
@Suite struct ByteTransferTests {
    typealias Pair = BufferedSocketTests.Pair

    /// An evbuffer holding `pieces`, each in a chain of its own, as bytes read in several reads lie.
    private static func source(_ pieces: [String]) -> OpaquePointer {
        let buffer = evbuffer_new()!
        for piece in pieces {
            let chunk = evbuffer_new()!
            _ = piece.withCString { evbuffer_add(chunk, $0, strlen($0)) }
            evbuffer_add_buffer(buffer, chunk)
            evbuffer_free(chunk)
        }
        return buffer
    }

    private static func text(of buffer: OpaquePointer) -> String {
        var bytes = [UInt8](repeating: 0, count: evbuffer_get_length(buffer))
        evbuffer_copyout(buffer, &bytes, bytes.count)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Everything the peer reads until it has `count` bytes, the loop running meanwhile to write what was queued.
    private static func peerReads(_ count: Int, from pair: Pair) -> String {
        var received: [UInt8] = []
        _ = pair.run {
            var bytes = [UInt8](repeating: 0, count: 65_536)
            let got = recv(pair.peer, &bytes, bytes.count, Int32(MSG_DONTWAIT))
            if got > 0 { received += bytes[..<got] }
            return received.count >= count
        }
        return String(decoding: received, as: UTF8.self)
    }

    @Test func aHeadAndTheBodyBytesAllowedLeaveTogetherAndTheRestStays() throws {
        let pair = try Pair(reading: false)
        let source = Self.source(["first-", "second-", "third"])
        defer { evbuffer_free(source) }
        var head = HeadBuffer(Array("HEAD\r\n\r\n".utf8))
        let moved = ByteTransfer.move(from: source, to: pair.socket, limit: 9, after: &head)
        #expect(moved == 9)
        #expect(head.isEmpty)
        #expect(pair.socket.outputLength == 0)
        #expect(Self.peerReads(17, from: pair) == "HEAD\r\n\r\nfirst-sec")
        #expect(Self.text(of: source) == "ond-third")
    }

    @Test func aBodyInMoreSegmentsThanOneWriteTakesArrivesWhole() throws {
        let pair = try Pair(reading: false)
        let pieces = (0..<9).map { "piece\($0);" }
        let source = Self.source(pieces)
        defer { evbuffer_free(source) }
        var head = HeadBuffer(Array("H:".utf8))
        let moved = ByteTransfer.move(from: source, to: pair.socket, after: &head)
        let body = pieces.joined()
        #expect(moved == body.utf8.count)
        #expect(evbuffer_get_length(source) == 0)
        #expect(Self.peerReads(2 + body.utf8.count, from: pair) == "H:" + body)
    }

    @Test func bytesAlreadyQueuedGoFirstThenTheHeadThenTheBody() throws {
        let pair = try Pair(reading: false)
        _ = "queued;".withCString { evbuffer_add(pair.socket.output, $0, strlen($0)) }
        let source = Self.source(["body"])
        defer { evbuffer_free(source) }
        var head = HeadBuffer(Array("head;".utf8))
        #expect(ByteTransfer.move(from: source, to: pair.socket, after: &head) == 4)
        #expect(head.isEmpty)
        #expect(Self.peerReads(16, from: pair) == "queued;head;body")
    }

    @Test func whatTheSocketDoesNotTakeIsQueuedInOrder() throws {
        let pair = try Pair(reading: false)
        var small: Int32 = 4096
        setsockopt(pair.socket.fd, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(pair.peer, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let headText = "H" + String(repeating: "h", count: 200_000) + "\r\n\r\n"
        let bodyPieces = (0..<5).map { String(repeating: Character(UnicodeScalar(UInt8(ascii: "a") + UInt8($0))), count: 30_000) }
        let source = Self.source(bodyPieces)
        defer { evbuffer_free(source) }
        var head = HeadBuffer(Array(headText.utf8))
        let moved = ByteTransfer.move(from: source, to: pair.socket, after: &head)
        #expect(moved == 150_000)
        #expect(head.isEmpty)
        #expect(pair.socket.outputLength > 0)
        let expected = headText + bodyPieces.joined()
        let received = Self.peerReads(expected.utf8.count, from: pair)
        // Compared as a flag: a message quoting 350 KB on both sides would bury the failure.
        let arrivedInOrder = received == expected
        #expect(arrivedInOrder, "received \(received.utf8.count) of \(expected.utf8.count) bytes")
    }

    @Test func aHeadWithNoBodyBytesIsSentAlone() throws {
        let pair = try Pair(reading: false)
        let source = Self.source([])
        defer { evbuffer_free(source) }
        var head = HeadBuffer(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        #expect(ByteTransfer.move(from: source, to: pair.socket, after: &head) == 0)
        #expect(Self.peerReads(18, from: pair) == "GET / HTTP/1.1\r\n\r\n")
    }
}

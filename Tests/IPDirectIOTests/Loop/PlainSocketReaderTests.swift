import CEvent
import Glibc
import IPDirectCore
import Testing
@testable import IPDirectIO
import IPDirectTesting

/// A plain buffered socket reads through `PlainSocketReader`: what the owner hears must be what libevent's
/// own reader told it (bytes, EOF, errors, timeouts, the read high watermark), for a socket made on a
/// descriptor and for one that connected itself.
@Suite struct PlainSocketReaderTests {
    typealias Pair = BufferedSocketTests.Pair

    @Test func readsMoreThanOneReadTakesOverSeveralReads() throws {
        let pair = try Pair()
        let sent = String(repeating: "0123456789", count: 1_000)
        pair.peerSends(sent)
        #expect(pair.run { pair.socket.inputLength == sent.utf8.count })
        #expect(pair.owner.reads >= (sent.utf8.count + PlainSocketReader.readLimit - 1) / PlainSocketReader.readLimit)
        var bytes = [UInt8](repeating: 0, count: sent.utf8.count)
        evbuffer_remove(pair.socket.input, &bytes, bytes.count)
        #expect(String(decoding: bytes, as: UTF8.self) == sent)
    }

    @Test func readsIntoTheRoomLeftAfterBytesAlreadyWaiting() throws {
        let pair = try Pair()
        pair.peerSends(String(repeating: "a", count: 1000))
        #expect(pair.run { pair.socket.inputLength == 1000 })
        pair.peerSends(String(repeating: "b", count: 5000))
        #expect(pair.run { pair.socket.inputLength == 6000 })
        var bytes = [UInt8](repeating: 0, count: 6000)
        evbuffer_remove(pair.socket.input, &bytes, bytes.count)
        #expect(bytes[..<1000].allSatisfy { $0 == UInt8(ascii: "a") } && bytes[1000...].allSatisfy { $0 == UInt8(ascii: "b") })
    }

    @Test func anAcceptedSocketKeepsAShortHeadInASmallChain() throws {
        let pair = try Pair()
        pair.peerSends("GET http://example.test/ HTTP/1.1\r\nHost: example.test\r\n")
        #expect(pair.run { pair.socket.inputLength == 55 })
        #expect((1..<1024 - 55).contains(Self.roomAtEnd(of: pair.socket.input)))
    }

    @Test func anAcceptedSocketTakesBytesPastItsSmallChainInTheSameRead() throws {
        #expect(Int(IPD_READ_OVERFLOW_BYTES) >= PlainSocketReader.readLimit - PlainSocketReader.compactReservation)
        let pair = try Pair()
        let sent = String((0..<3_000).map { Character(UnicodeScalar(UInt8(ascii: "a") + UInt8($0 % 26))) })
        pair.peerSends(sent)
        #expect(pair.run { pair.socket.inputLength == sent.utf8.count })
        #expect(pair.owner.reads == 1)
        var bytes = [UInt8](repeating: 0, count: sent.utf8.count)
        evbuffer_remove(pair.socket.input, &bytes, bytes.count)
        #expect(String(decoding: bytes, as: UTF8.self) == sent)
    }

    /// The free space after the last bytes of `input`'s last chain: what a read reserved there and left.
    static func roomAtEnd(of input: OpaquePointer) -> Int {
        // The reader keeps the input's end frozen between its reads.
        evbuffer_unfreeze(input, 0)
        defer { evbuffer_freeze(input, 0) }
        var space = iovec()
        guard evbuffer_reserve_space(input, 1, &space, 1) == 1 else { return -1 }
        return space.iov_len
    }

    @Test func endOfFileStopsReadingAndReachesTheOwnerAfterTheBytes() throws {
        let pair = try Pair()
        pair.peerSends("last words")
        shutdown(pair.peer, Int32(SHUT_WR))
        #expect(pair.run { !pair.owner.events.isEmpty })
        #expect(pair.socket.inputLength == 10)
        #expect(pair.owner.events == [Int16(BEV_EVENT_READING | BEV_EVENT_EOF)])
        #expect(pair.socket.isReading == false)
    }

    @Test func aResetReachesTheOwnerAsAnError() throws {
        let base = EventBase()
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
            throw FixtureError("socketpair: \(String(cString: strerror(errno)))")
        }
        evutil_make_socket_nonblocking(fds[0])
        guard var socket = BufferedSocket(socket: fds[0], base: base) else { throw FixtureError("bufferevent_socket_new failed") }
        defer { socket.close() }
        let owner = BufferedSocketTests.Owner()
        socket.handOver(to: owner, calling: BufferedSocketTests.Owner.handlers)
        socket.resumeReading()
        // A peer that closes with bytes it never read resets the connection.
        _ = "unread".withCString { send(fds[0], $0, 6, Int32(MSG_NOSIGNAL)) }
        Glibc.close(fds[1])
        #expect(LoopDriver.run(base) { !owner.events.isEmpty })
        #expect(owner.events == [Int16(BEV_EVENT_READING | BEV_EVENT_ERROR)])
        #expect(socket.isReading == false)
    }

    @Test func aSilentPeerMeetsTheReadTimeout() throws {
        let pair = try Pair()
        pair.socket.setTimeouts(readMillis: 30, writeMillis: nil)
        #expect(pair.run { !pair.owner.events.isEmpty })
        #expect(pair.owner.events == [Int16(BEV_EVENT_READING | BEV_EVENT_TIMEOUT)])
        #expect(pair.socket.isReading == false)
    }

    @Test func readingPausesOnceTheInputReachesTheHighWatermarkAndGoesOnBelowIt() throws {
        // No owner: the input is taken here, between loop turns. Reads of 60 bytes show where reading stops.
        let pair = try Pair(reading: false)
        pair.socket.setWatermarks(readHigh: 100, drainAt: 0)
        pair.socket.setMaxSingleIO(60)
        pair.socket.resumeReading()
        pair.peerSends(String(repeating: "x", count: 250))
        #expect(pair.run { pair.socket.inputLength == 120 })
        LoopDriver.run(pair.base, forMillis: 30)
        #expect(pair.socket.inputLength == 120)
        // Still at the mark: reading stays paused.
        evbuffer_drain(pair.socket.input, 20)
        LoopDriver.run(pair.base, forMillis: 30)
        #expect(pair.socket.inputLength == 100)
        evbuffer_drain(pair.socket.input, 1)
        #expect(pair.run { pair.socket.inputLength == 159 })
        LoopDriver.run(pair.base, forMillis: 30)
        #expect(pair.socket.inputLength == 159)
        evbuffer_drain(pair.socket.input, 159)
        #expect(pair.run { pair.socket.inputLength == 70 })
    }

    @Test func loweringTheHighWatermarkBelowWhatWaitsPausesReadingAtOnce() throws {
        let pair = try Pair(reading: false)
        pair.socket.resumeReading()
        pair.peerSends(String(repeating: "y", count: 50))
        #expect(pair.run { pair.socket.inputLength == 50 })
        pair.socket.setWatermarks(readHigh: 40, drainAt: 0)
        pair.peerSends(String(repeating: "z", count: 50))
        LoopDriver.run(pair.base, forMillis: 30)
        #expect(pair.socket.inputLength == 50)
        pair.socket.setWatermarks(readHigh: 0, drainAt: 0)
        #expect(pair.run { pair.socket.inputLength == 100 })
    }

    @Test func bytesReadElsewhereAndHandedOverCountTowardTheHighWatermark() throws {
        let pair = try Pair(reading: false)
        pair.socket.setWatermarks(readHigh: 40, drainAt: 0)
        Array(repeating: UInt8(ascii: "d"), count: 50).withUnsafeBytes { pair.socket.deliverRead($0) }
        pair.socket.resumeReading()
        pair.peerSends(String(repeating: "p", count: 30))
        LoopDriver.run(pair.base, forMillis: 30)
        #expect(pair.socket.inputLength == 50, "reading paused at the delivered bytes")
        evbuffer_drain(pair.socket.input, 20)
        #expect(pair.run { pair.socket.inputLength == 60 }, "and goes on once they are taken below the mark")
    }

    @Test func aSocketThatConnectedItselfReadsTheSameWay() throws {
        let base = EventBase()
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        listen(listener, 1)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        let owner = BufferedSocketTests.Owner()
        guard var socket = BufferedSocket(socket: -1, base: base) else { throw FixtureError("bufferevent_socket_new failed") }
        defer { socket.close() }
        socket.handOver(to: owner, calling: BufferedSocketTests.Owner.handlers)
        socket.resumeReading()
        let port = UInt16(bigEndian: address.sin_port)
        let connecting = socket.connect(to: SocketAddress(ip: IPAddress("127.0.0.1")!, port: port))
        #expect(connecting)
        let accepted = accept(listener, nil, nil)
        defer { Glibc.close(accepted) }
        _ = "hello".withCString { send(accepted, $0, 5, Int32(MSG_NOSIGNAL)) }
        shutdown(accepted, Int32(SHUT_WR))
        #expect(LoopDriver.run(base) { owner.events.contains { $0 & Int16(BEV_EVENT_EOF) != 0 } })
        #expect(socket.inputLength == 5)
        // Its bytes are mostly bodies: a read reserves room for a whole read in the input.
        #expect(Self.roomAtEnd(of: socket.input) >= PlainSocketReader.readLimit - 5)
    }
}

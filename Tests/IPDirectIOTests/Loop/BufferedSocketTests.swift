import CEvent
import Glibc
import Testing
@testable import IPDirectIO
import IPDirectTesting

/// One buffered socket on a real event base, its far end a plain socketpair descriptor the test reads and
/// writes: levels, pausing, a FIN, moving bytes with a limit, handing the callbacks over, closing twice.
@Suite struct BufferedSocketTests {
    /// Counts what libevent reported to it.
    final class Owner {
        var reads = 0
        var drains = 0
        var events: [Int16] = []

        static let handlers = BufferEventHandlers<Owner>(
            read: { _, context in Unmanaged<Owner>.fromOpaque(context!).takeUnretainedValue().reads += 1 },
            drain: { _, context in Unmanaged<Owner>.fromOpaque(context!).takeUnretainedValue().drains += 1 },
            event: { _, events, context in Unmanaged<Owner>.fromOpaque(context!).takeUnretainedValue().events.append(events) })
    }

    /// A buffered socket, the descriptor of its peer, and the base its events belong to, which outlives
    /// the socket: the pair closes both ends when it goes.
    final class Pair {
        let base: EventBase
        let owner = Owner()
        var socket: BufferedSocket
        let peer: Int32

        /// With `reading`, the socket reads and reports to `owner` from the start.
        init(on base: EventBase = EventBase(), reading: Bool = true) throws {
            var fds: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
                throw FixtureError("socketpair: \(String(cString: strerror(errno)))")
            }
            evutil_make_socket_nonblocking(fds[0])
            evutil_make_socket_nonblocking(fds[1])
            guard let socket = BufferedSocket(socket: fds[0], base: base) else {
                throw FixtureError("bufferevent_socket_new failed")
            }
            self.base = base
            self.socket = socket
            peer = fds[1]
            if reading {
                self.socket.handOver(to: owner, calling: Owner.handlers)
                self.socket.resumeReading()
            }
        }

        deinit {
            socket.close()
            Glibc.close(peer)
        }

        func peerSends(_ text: String) {
            _ = text.withCString { send(peer, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        }

        /// What the peer can read now; nil at EOF.
        func peerReceives() -> String? {
            var bytes = [UInt8](repeating: 0, count: 4096)
            let count = recv(peer, &bytes, bytes.count, Int32(MSG_DONTWAIT))
            if count == 0 { return nil }
            return String(decoding: bytes[..<max(0, count)], as: UTF8.self)
        }

        /// Runs the loop until `done()`, at most `LoopDriver`'s limit.
        func run(until done: () -> Bool) -> Bool { LoopDriver.run(base, until: done) }
    }

    @Test func levelsCountTheBytesWaitingEachWay() throws {
        let pair = try Pair()
        pair.peerSends("hello")
        #expect(pair.run { pair.owner.reads > 0 })
        #expect(pair.socket.inputLength == 5)
        Array("abc".utf8).withUnsafeBytes { pair.socket.write($0) }
        #expect(pair.socket.outputLength == 3)
        #expect(pair.run { pair.owner.drains > 0 })
        #expect(pair.socket.outputLength == 0)
        #expect(pair.peerReceives() == "abc")
    }

    @Test func pausedReadingLeavesBytesInTheKernelUntilResumed() throws {
        let pair = try Pair()
        pair.socket.pauseReading()
        #expect(pair.socket.isReading == false)
        pair.peerSends("later")
        LoopDriver.run(pair.base, forMillis: 50)
        #expect(pair.owner.reads == 0 && pair.socket.inputLength == 0)
        pair.socket.resumeReading()
        #expect(pair.run { pair.owner.reads > 0 })
        #expect(pair.socket.inputLength == 5)
    }

    @Test func shuttingTheWriteSideReachesThePeerAsEndOfFile() throws {
        let pair = try Pair()
        pair.socket.shutWrite()
        #expect(pair.peerReceives() == nil)
        // Reading still works the other way.
        pair.peerSends("still open")
        #expect(pair.run { pair.socket.inputLength == 10 })
    }

    @Test func movesAtMostTheLimitToAnotherSocketOrABuffer() throws {
        let from = try Pair()
        let to = try Pair(on: from.base, reading: false)
        from.peerSends("0123456789")
        #expect(from.run { from.socket.inputLength == 10 })
        #expect(from.socket.moveInput(to: to.socket, limit: 4) == 4)
        #expect(from.socket.inputLength == 6)
        #expect(to.run { to.socket.outputLength == 0 })
        #expect(to.peerReceives() == "0123")
        let buffer = evbuffer_new()!
        defer { evbuffer_free(buffer) }
        #expect(from.socket.moveInput(to: buffer, limit: 100) == 6)
        #expect(evbuffer_get_length(buffer) == 6 && from.socket.inputLength == 0)
    }

    @Test func handingOverSendsEveryLaterCallbackToTheNewOwnerOnly() throws {
        let pair = try Pair()
        let next = Owner()
        pair.peerSends("first")
        #expect(pair.run { pair.owner.reads == 1 })
        evbuffer_drain(pair.socket.input, pair.socket.inputLength)
        pair.socket.handOver(to: next, calling: Owner.handlers)
        pair.peerSends("second")
        shutdown(pair.peer, Int32(SHUT_WR))
        #expect(pair.run { next.reads == 1 && !next.events.isEmpty })
        #expect(next.events.allSatisfy { $0 & Int16(BEV_EVENT_EOF) != 0 })
        #expect(pair.owner.reads == 1 && pair.owner.events.isEmpty)
    }

    @Test func closingTwiceIsSafeAndNoCallbackFollowsTheClose() throws {
        let pair = try Pair()
        pair.socket.close()
        #expect(pair.socket.isOpen == false)
        pair.socket.close()
        #expect(pair.run { pair.peerReceives() == nil })
        pair.peerSends("too late")
        LoopDriver.run(pair.base, forMillis: 20)
        #expect(pair.owner.reads == 0 && pair.owner.events.isEmpty)
    }

    @Test func releasingTheDescriptorFreesTheBuffersButKeepsTheSocketOpen() throws {
        let pair = try Pair(reading: false)
        let fd = pair.socket.releaseDescriptor()
        defer { Glibc.close(fd) }
        #expect(fd >= 0 && pair.socket.isOpen == false)
        pair.peerSends("kept")
        var bytes = [UInt8](repeating: 0, count: 16)
        #expect(pair.run { recv(fd, &bytes, bytes.count, Int32(MSG_PEEK | MSG_DONTWAIT)) == 4 })
    }

    @Test func takingMovesTheSocketAndLeavesTheOriginalEmpty() throws {
        let pair = try Pair(reading: false)
        var moved = pair.socket.take()
        #expect(pair.socket.isOpen == false && moved.isOpen)
        moved.shutWrite()
        #expect(pair.peerReceives() == nil)
        moved.close()
    }
}

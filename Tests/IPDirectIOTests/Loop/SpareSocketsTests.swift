import CEvent
import Glibc
import Testing
@testable import IPDirectIO
import IPDirectTesting

/// A bufferevent kept by `SpareSockets` serves the next connection as a new one with the flow asked for would:
/// nothing of the connection it served before (bytes, callbacks, timeouts, read limit, descriptor) reaches the
/// next unless the next asked for the same, and only as many are kept as the list holds.
@Suite struct SpareSocketsTests {
    typealias Owner = BufferedSocketTests.Owner

    /// Both ends of a socketpair, non-blocking; the test closes them.
    static func socketPair() throws -> (near: Int32, far: Int32) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
            throw FixtureError("socketpair: \(String(cString: strerror(errno)))")
        }
        evutil_make_socket_nonblocking(fds[0])
        evutil_make_socket_nonblocking(fds[1])
        return (fds[0], fds[1])
    }

    /// `SpareSockets.socket(for:flow:)`, which a test cannot do without; by default with libevent's own settings.
    static func socket(on fd: Int32, from spares: SpareSockets,
                       flow: BufferedSocket.Flow = .libeventDefaults) throws -> BufferedSocket {
        guard let socket = spares.socket(for: fd, flow: flow) else { throw FixtureError("no bufferevent for \(fd)") }
        return socket
    }

    static func send(_ text: String, to fd: Int32) {
        _ = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    static func receive(from fd: Int32) -> String {
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &bytes, bytes.count, Int32(MSG_DONTWAIT))
        return String(decoding: bytes[..<max(0, count)], as: UTF8.self)
    }

    /// A socket that served a connection and left everything behind it: unread input, unwritten output,
    /// a read limit it had reached, short timeouts, its own callbacks. Its peer's end goes to `peers`, for
    /// the test to close at its end: a write to a closed peer would raise SIGPIPE.
    static func usedSocket(on base: EventBase, owner: Owner, peers: inout [Int32]) throws -> BufferedSocket {
        let (near, far) = try socketPair()
        peers.append(far)
        guard var socket = BufferedSocket(socket: near, base: base) else { throw FixtureError("no bufferevent") }
        socket.handOver(to: owner, calling: Owner.handlers)
        socket.setWatermarks(readHigh: 4, drainAt: 1)
        socket.setMaxSingleIO(8)
        socket.setTimeouts(readMillis: 20, writeMillis: 20)
        socket.resumeReading()
        send("old request", to: far)
        #expect(LoopDriver.run(base) { socket.inputLength > 0 })
        #expect(socket.isReading && socket.readHighWater == 4)
        Array("old reply".utf8).withUnsafeBytes { socket.write($0) }
        #expect(socket.outputLength > 0)
        return socket
    }

    @Test func aKeptSocketServesTheNextConnectionWithNothingOfThePreviousOne() throws {
        let base = EventBase()
        let spares = SpareSockets(base: base)
        let previous = Owner()
        var peers: [Int32] = []
        defer { peers.forEach { Glibc.close($0) } }
        var used = try Self.usedSocket(on: base, owner: previous, peers: &peers)
        let oldFD = spares.keep(&used)
        #expect(spares.count == 1)
        // The old descriptor is the caller's, still open: it is no longer the bufferevent's.
        #expect(fcntl(oldFD, F_GETFD) >= 0)
        Glibc.close(oldFD)
        let (near, far) = try Self.socketPair()
        defer { Glibc.close(far) }
        var socket = try Self.socket(on: near, from: spares)
        defer { socket.close() }
        #expect(spares.count == 0)
        #expect(socket.fd == near)
        #expect(socket.inputLength == 0 && socket.outputLength == 0)
        #expect(socket.readHighWater == 0 && !socket.isReading)
        // No timeout of the previous connection fires (it would stop reading), and no callback reaches the
        // previous owner.
        socket.resumeReading()
        LoopDriver.run(base, forMillis: 60)
        #expect(socket.isReading == true)
        let request = String(repeating: "n", count: 100)
        Self.send(request, to: far)
        #expect(LoopDriver.run(base) { socket.inputLength == 100 })
        // Bytes are read past the previous read limit, in reads larger than the previous connection's.
        let next = Owner()
        socket.handOver(to: next, calling: Owner.handlers)
        let more = String(repeating: "m", count: 100)
        Self.send(more, to: far)
        #expect(LoopDriver.run(base) { socket.inputLength == 200 })
        #expect(next.reads == 1 && next.events.isEmpty)
        var bytes = [UInt8](repeating: 0, count: 200)
        evbuffer_remove(socket.input, &bytes, bytes.count)
        #expect(String(decoding: bytes, as: UTF8.self) == request + more)
        // Writing works at once and sends only what this connection wrote.
        Array("new reply".utf8).withUnsafeBytes { socket.write($0) }
        #expect(LoopDriver.run(base) { socket.outputLength == 0 })
        #expect(Self.receive(from: far) == "new reply")
        #expect(previous.reads == 1 && previous.events.isEmpty && previous.drains == 0)
    }

    @Test func aKeptSocketAskedForTheFlowItHadKeepsItAndOneAskedForAnotherGetsThatOne() throws {
        let base = EventBase()
        let spares = SpareSockets(base: base)
        var peers: [Int32] = []
        defer { peers.forEach { Glibc.close($0) } }
        let flow = BufferedSocket.Flow(readHighWater: 4, drainAt: 1, maxSingleIO: 8, readTimeoutMillis: 20,
                                       writeTimeoutMillis: 20)
        var used = try Self.usedSocket(on: base, owner: Owner(), peers: &peers)
        #expect(used.flow == flow)
        Glibc.close(spares.keep(&used))
        let (near, far) = try Self.socketPair()
        defer { Glibc.close(far) }
        var same = try Self.socket(on: near, from: spares, flow: flow)
        #expect(same.flow == flow && same.readHighWater == 4)
        // The kept read limit and read size work on the new connection: one read of 8 bytes passes the mark of 4,
        // and reading pauses there.
        same.resumeReading()
        Self.send("0123456789ab", to: far)
        #expect(LoopDriver.run(base) { same.inputLength == 8 })
        LoopDriver.run(base, forMillis: 10)
        #expect(same.inputLength == 8)
        evbuffer_drain(same.input, 8)
        #expect(LoopDriver.run(base) { same.inputLength == 4 })
        // And the kept read timeout: the peer stays silent once the input is taken.
        let owner = Owner()
        same.handOver(to: owner, calling: Owner.handlers)
        evbuffer_drain(same.input, 4)
        #expect(LoopDriver.run(base) { owner.events.contains(Int16(BEV_EVENT_READING | BEV_EVENT_TIMEOUT)) })
        Glibc.close(spares.keep(&same))

        let (otherNear, otherFar) = try Self.socketPair()
        defer { Glibc.close(otherFar) }
        let other = BufferedSocket.Flow(readHighWater: 0, drainAt: 0, maxSingleIO: nil, readTimeoutMillis: nil,
                                        writeTimeoutMillis: 1000)
        var socket = try Self.socket(on: otherNear, from: spares, flow: other)
        defer { socket.close() }
        #expect(socket.flow == other && socket.readHighWater == 0)
        socket.resumeReading()
        let request = String(repeating: "r", count: 100)
        Self.send(request, to: otherFar)
        #expect(LoopDriver.run(base) { socket.inputLength == 100 })
        LoopDriver.run(base, forMillis: 40)
        #expect(socket.isReading == true, "no read timeout of the connection before")
    }

    @Test func keepsNoMoreSocketsThanItsCapacity() throws {
        let base = EventBase()
        let spares = SpareSockets(base: base, capacity: 2)
        var peers: [Int32] = []
        defer { peers.forEach { Glibc.close($0) } }
        var first = try Self.usedSocket(on: base, owner: Owner(), peers: &peers)
        var second = try Self.usedSocket(on: base, owner: Owner(), peers: &peers)
        var third = try Self.usedSocket(on: base, owner: Owner(), peers: &peers)
        for fd in [spares.keep(&first), spares.keep(&second), spares.keep(&third)] {
            // Kept or freed, the descriptor stays open for the caller.
            #expect(fcntl(fd, F_GETFD) >= 0)
            Glibc.close(fd)
        }
        #expect(spares.count == 2 && !third.isOpen)
    }

    /// How many sockets the list keeps after one that `use` left as it did is given to it; the socket is
    /// closed either way, and the loop runs a little after, for any callback left behind.
    static func keptCount(after use: (inout BufferedSocket) -> Void) throws -> Int {
        let base = EventBase()
        let spares = SpareSockets(base: base)
        let (near, far) = try socketPair()
        defer { Glibc.close(far) }
        var socket = try Self.socket(on: near, from: spares)
        use(&socket)
        Glibc.close(spares.keep(&socket))
        #expect(socket.isOpen == false)
        LoopDriver.run(base, forMillis: 20)
        return spares.count
    }

    @Test func aSocketThatDeferredACallbackIsFreedRatherThanKept() throws {
        let owner = Owner()
        let kept = try Self.keptCount { socket in
            socket.handOver(to: owner, calling: Owner.handlers)
            socket.triggerRead()
        }
        #expect(kept == 0 && owner.reads == 0)
    }

    @Test func aSocketWithWritingDisabledIsFreedRatherThanKept() throws {
        #expect(try Self.keptCount { $0.pauseReadingAndWriting() } == 0)
    }
}

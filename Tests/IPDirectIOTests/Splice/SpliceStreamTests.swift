import CEvent
import Glibc
import Testing
@testable import IPDirectIO

/// One direction moved socket to pipe to socket: a limit stops it at a body's last byte, a FIN ends it, and
/// without a free pipe the same bytes pass through a buffer.
@Suite struct SpliceStreamTests {
    /// A bound on a test that would otherwise wait forever for an end that never comes.
    static let loopLimitSeconds = 10

    struct Sockets {
        /// The sender writes into `source`'s far end; the stream reads `source` and writes `destination`,
        /// whose far end the test reads.
        let sender: Int32
        let source: Int32
        let destination: Int32
        let receiver: Int32

        init() {
            var first: [Int32] = [0, 0]
            var second: [Int32] = [0, 0]
            socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &first)
            socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &second)
            sender = first[0]
            source = first[1]
            destination = second[0]
            receiver = second[1]
            for fd in [source, destination, receiver] { _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
        }

        func closeAll() {
            for fd in [sender, source, destination, receiver] { close(fd) }
        }
    }

    /// Runs the stream until it ends, reading the receiving end as it goes (so the destination never stays
    /// full); returns the end and every byte received.
    static func run(_ sockets: Sockets, pool: PipePool, metrics: TrafficMetricsCell, limit: UInt64?,
                    sending payload: [UInt8], thenClose: Bool) -> (SpliceStream.End?, [UInt8]) {
        let base = EventBase()
        var received: [UInt8] = []
        var ended: SpliceStream.End?
        func readReceiver() {
            var block = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(sockets.receiver, &block, block.count)
                guard count > 0 else { return }
                received += block[..<count]
            }
        }
        let stream = SpliceStream(base: base, pool: pool, metrics: metrics, from: sockets.source,
                                  to: sockets.destination, limit: limit)
        stream.onProgress = { _, end in
            readReceiver()
            if let end {
                ended = end
                base.loopBreak()
            }
        }
        let writer = Thread(payload: payload, to: sockets.sender, thenClose: thenClose)
        stream.start()
        var bound = timeval(tv_sec: loopLimitSeconds, tv_usec: 0)
        event_base_loopexit(base.raw, &bound)
        base.dispatch()
        writer.join()
        readReceiver()
        stream.close()
        return (ended, received)
    }

    /// Writes the payload from a thread of its own (blocking), as a peer would.
    final class Thread: @unchecked Sendable {
        private var thread = pthread_t()
        let payload: [UInt8]
        let fd: Int32
        let thenClose: Bool

        init(payload: [UInt8], to fd: Int32, thenClose: Bool) {
            self.payload = payload
            self.fd = fd
            self.thenClose = thenClose
            let context = Unmanaged.passRetained(self).toOpaque()
            pthread_create(&thread, nil, { context in
                let writer = Unmanaged<Thread>.fromOpaque(context!).takeRetainedValue()
                writer.payload.withUnsafeBytes { raw in
                    var sent = 0
                    while sent < raw.count {
                        let count = write(writer.fd, raw.baseAddress! + sent, raw.count - sent)
                        if count <= 0 { break }
                        sent += count
                    }
                }
                if writer.thenClose { shutdown(writer.fd, Int32(SHUT_WR)) }
                return nil
            }, context)
        }

        func join() { pthread_join(thread, nil) }
    }

    static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
    }

    @Test(arguments: [1, 0])
    func aLimitStopsAtTheBodysLastByteAndLeavesTheRestInTheSocket(pipes: Int) {
        let sockets = Sockets()
        defer { sockets.closeAll() }
        let metrics = TrafficMetricsCell()
        let pool = PipePool(limit: pipes, metrics: metrics)
        let body = Self.pattern(300_000)
        let next = Array("GET /next HTTP/1.1\r\n".utf8)
        let (end, received) = Self.run(sockets, pool: pool, metrics: metrics, limit: UInt64(body.count),
                                       sending: body + next, thenClose: false)
        #expect(end == .limitReached)
        #expect(received == body)
        var rest = [UInt8](repeating: 0, count: 64)
        let count = read(sockets.source, &rest, rest.count)
        #expect(count == next.count && Array(rest[..<max(0, count)]) == next)
        if pipes > 0 {
            #expect(metrics.snapshot.splicedBytes == UInt64(body.count))
        } else {
            #expect(metrics.snapshot.splicedBytes == 0)
            #expect(metrics.snapshot.pipeShortages > 0)
        }
    }

    @Test func withoutALimitTheSendersFINEndsTheStreamAfterEveryByte() {
        let sockets = Sockets()
        defer { sockets.closeAll() }
        let metrics = TrafficMetricsCell()
        let pool = PipePool(limit: 1, metrics: metrics)
        let body = Self.pattern(1_000_000)
        let (end, received) = Self.run(sockets, pool: pool, metrics: metrics, limit: nil, sending: body, thenClose: true)
        #expect(end == .sourceClosed)
        #expect(received == body)
        // The pipe went back to the pool empty, not closed.
        #expect(pool.openCount == 1)
        #expect(pool.take() != nil)
    }
}

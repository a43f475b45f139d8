import CEvent
import Glibc

/// One direction of bytes moved between two sockets outside the bufferevents: read from `source` and
/// written to `destination`, at most `limit` bytes (nil: until the source's FIN). The bytes cross in the
/// kernel through a pipe borrowed from the worker's pool only while they are in flight; when every pipe
/// is busy they cross through a buffer held just as long. While the destination is full, the source is
/// not read (flow control), so at most one chunk is ever in flight.
final class SpliceStream {
    /// Which socket a failure came from.
    enum Socket: Equatable {
        case source
        case destination
    }

    /// How a stream ended. By then it has given back its pipe and stopped watching both sockets.
    enum End: Equatable {
        /// `limit` bytes passed.
        case limitReached
        /// The source's FIN was read and every byte before it written.
        case sourceClosed
        /// Reading or writing failed, or waited longer than its timeout.
        case failed(Socket, reason: String, timedOut: Bool)
    }

    /// Largest read from the source per wakeup; a pipe holds 64 KiB unless enlarged.
    static let chunkBytes = 64 * 1024
    /// SPLICE_F_MOVE | SPLICE_F_NONBLOCK.
    static let spliceFlags: UInt32 = 1 | 2

    let source: Int32
    let destination: Int32
    private let pool: PipePool
    private let metrics: TrafficMetricsCell
    private var pipe: SplicePipe?
    /// The stand-in for a pipe when none was free.
    private var buffer: OpaquePointer?
    /// Bytes read from the source and not yet written.
    private var inFlight = 0
    /// Bytes the stream may still read; nil: no limit.
    private var left: UInt64?
    private var sourceClosed = false
    private var isClosed = false
    private var readEvent: OpaquePointer?
    private var writeEvent: OpaquePointer?
    private var readTimeout: timeval?
    private var writeTimeout: timeval?
    /// Bytes written through the pipe and not yet in the worker's counters.
    private var splicedSinceCount = 0
    /// Bytes written to the destination so far.
    private(set) var bytesMoved: UInt64 = 0
    /// Called after each wakeup that wrote bytes, with how many, and once more with the end (the
    /// stream's last act, so the callee may close it).
    var onProgress: (_ moved: Int, _ end: End?) -> Void = { _, _ in }

    /// `readTimeoutMillis` bounds a wait for the source's next bytes, `writeTimeoutMillis` a wait for
    /// room at the destination; nil: no bound here (the session's own deadline watches).
    init(base: EventBase, pool: PipePool, metrics: TrafficMetricsCell, from source: Int32, to destination: Int32,
         limit: UInt64?, readTimeoutMillis: Int? = nil, writeTimeoutMillis: Int? = nil) {
        self.source = source
        self.destination = destination
        self.pool = pool
        self.metrics = metrics
        left = limit
        readTimeout = readTimeoutMillis.map(timeval.init(millis:))
        writeTimeout = writeTimeoutMillis.map(timeval.init(millis:))
        let context = Unmanaged.passUnretained(self).toOpaque()
        readEvent = event_new(base.raw, source, Int16(EV_READ | EV_PERSIST), SpliceStream.readable, context)
        writeEvent = event_new(base.raw, destination, Int16(EV_WRITE | EV_PERSIST), SpliceStream.writable, context)
    }

    deinit { close() }

    func start() {
        SpliceStream.add(readEvent, readTimeout)
    }

    /// Stops watching the sockets (never closes them) and lets go of the pipe or buffer; bytes still in
    /// flight are dropped with it. Idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        if let event = readEvent { event_free(event) }
        if let event = writeEvent { event_free(event) }
        readEvent = nil
        writeEvent = nil
        releaseCarrier()
    }

    private static let readable: event_callback_fn = { _, what, context in
        let stream = Unmanaged<SpliceStream>.fromOpaque(context!).takeUnretainedValue()
        if what & Int16(EV_TIMEOUT) != 0 { return stream.end(.failed(.source, reason: "timed out", timedOut: true), moved: 0) }
        stream.fill()
    }

    private static let writable: event_callback_fn = { _, what, context in
        let stream = Unmanaged<SpliceStream>.fromOpaque(context!).takeUnretainedValue()
        if what & Int16(EV_TIMEOUT) != 0 { return stream.end(.failed(.destination, reason: "timed out", timedOut: true), moved: 0) }
        stream.drain()
    }

    /// Reads one chunk from the source into the pipe (or buffer), then writes what it can.
    private func fill() {
        if pipe == nil && buffer == nil {
            if let borrowed = pool.take() { pipe = borrowed } else { buffer = evbuffer_new() }
        }
        let wanted = left.map { Int(min($0, UInt64(SpliceStream.chunkBytes))) } ?? SpliceStream.chunkBytes
        let read: Int
        if let pipe {
            read = ipd_splice(source, pipe.write, wanted, SpliceStream.spliceFlags)
        } else {
            read = Int(evbuffer_read(buffer, source, Int32(wanted)))
        }
        if read == 0 {
            sourceClosed = true
            event_del(readEvent)
        } else if read < 0 {
            guard errno == EAGAIN || errno == EINTR else {
                return end(.failed(.source, reason: SpliceStream.errnoText(), timedOut: false), moved: 0)
            }
            if inFlight == 0 { releaseCarrier() }
            return
        } else {
            inFlight += read
            left = left.map { $0 - UInt64(read) }
        }
        drain()
    }

    /// Writes what is in flight; a full destination stops reading until it has room again.
    private func drain() {
        var moved = 0
        while inFlight > 0 {
            let written: Int
            if let pipe {
                written = ipd_splice(pipe.read, destination, inFlight, SpliceStream.spliceFlags)
            } else {
                written = Int(evbuffer_write(buffer, destination))
            }
            if written > 0 {
                inFlight -= written
                moved += written
                if pipe != nil { splicedSinceCount += written }
                continue
            }
            guard written == 0 || errno == EAGAIN || errno == EINTR else {
                return end(.failed(.destination, reason: SpliceStream.errnoText(), timedOut: false), moved: moved)
            }
            event_del(readEvent)
            SpliceStream.add(writeEvent, writeTimeout)
            return report(moved)
        }
        releaseCarrier()
        event_del(writeEvent)
        if left == 0 { return end(.limitReached, moved: moved) }
        if sourceClosed { return end(.sourceClosed, moved: moved) }
        SpliceStream.add(readEvent, readTimeout)
        report(moved)
    }

    private func report(_ moved: Int) {
        guard moved > 0 else { return }
        count(moved)
        onProgress(moved, nil)
    }

    private func end(_ end: End, moved: Int) {
        count(moved)
        close()
        onProgress(moved, end)
    }

    private func count(_ moved: Int) {
        bytesMoved += UInt64(moved)
        guard splicedSinceCount > 0 else { return }
        let spliced = UInt64(splicedSinceCount)
        splicedSinceCount = 0
        metrics.update { $0.splicedBytes += spliced }
    }

    /// Gives an empty pipe back to the pool; one still holding bytes is closed with them.
    private func releaseCarrier() {
        if let pipe {
            if inFlight == 0 { pool.giveBack(pipe) } else { pool.discard(pipe) }
            self.pipe = nil
        }
        if let buffer {
            evbuffer_free(buffer)
            self.buffer = nil
        }
        inFlight = 0
    }

    private static func add(_ event: OpaquePointer?, _ timeout: timeval?) {
        guard var timeout else {
            event_add(event, nil)
            return
        }
        event_add(event, &timeout)
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}

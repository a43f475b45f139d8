import CEvent
import Glibc
import IPDirectCore

/// Relays an established tunnel between two plain sockets with splice(2), through one pipe per
/// direction, so the kernel moves the bytes without copying them to user space. Half-close passes
/// through: an EOF read from one side becomes a FIN to the other once the pipe is empty.
final class SpliceTunnel {
    /// Largest splice from a socket into a pipe; a pipe holds 64 KiB unless enlarged.
    static let chunkBytes = 64 * 1024
    /// SPLICE_F_MOVE | SPLICE_F_NONBLOCK.
    static let spliceFlags: UInt32 = 1 | 2

    /// One direction of the tunnel: `from` is read into the pipe, the pipe is written to `to`.
    final class Direction {
        unowned let tunnel: SpliceTunnel
        let way: HalfCloseTracker.Direction
        let from: Int32
        let to: Int32
        let pipeRead: Int32
        let pipeWrite: Int32
        /// Bytes read from `from` and still in the pipe.
        var buffered = 0
        var bytesMoved: UInt64 = 0
        var readEvent: OpaquePointer?
        var writeEvent: OpaquePointer?

        init(tunnel: SpliceTunnel, way: HalfCloseTracker.Direction, from: Int32, to: Int32, pipe: (read: Int32, write: Int32)) {
            self.tunnel = tunnel
            self.way = way
            self.from = from
            self.to = to
            pipeRead = pipe.read
            pipeWrite = pipe.write
        }
    }

    private var directions: [Direction] = []
    private var halfClose = HalfCloseTracker()
    private var finished = false
    /// Called for every successful move, for the idle timeout.
    var onActivity: () -> Void = {}
    /// Called once when both directions are closed (nil) or one failed (the reason).
    var onFinish: (String?) -> Void = { _ in }

    /// Nil when the pipes cannot be made (e.g. out of descriptors); the caller then relays through
    /// its buffers instead.
    init?(base: EventBase, client: Int32, upstream: Int32) {
        guard let upstreamPipe = SpliceTunnel.makePipe() else { return nil }
        guard let clientPipe = SpliceTunnel.makePipe() else {
            Glibc.close(upstreamPipe.read)
            Glibc.close(upstreamPipe.write)
            return nil
        }
        let toUpstream = Direction(tunnel: self, way: .toUpstream, from: client, to: upstream, pipe: upstreamPipe)
        let toClient = Direction(tunnel: self, way: .toClient, from: upstream, to: client, pipe: clientPipe)
        directions = [toUpstream, toClient]
        for direction in directions {
            let context = Unmanaged.passUnretained(direction).toOpaque()
            direction.readEvent = event_new(base.raw, direction.from, Int16(EV_READ | EV_PERSIST), SpliceTunnel.readable, context)
            direction.writeEvent = event_new(base.raw, direction.to, Int16(EV_WRITE | EV_PERSIST), SpliceTunnel.writable, context)
        }
    }

    deinit { close() }

    var bytesToUpstream: UInt64 { directions.first?.bytesMoved ?? 0 }
    var bytesToClient: UInt64 { directions.last?.bytesMoved ?? 0 }

    func start() {
        for direction in directions { event_add(direction.readEvent, nil) }
    }

    /// Frees the events and pipes (not the sockets, which belong to the session); idempotent.
    func close() {
        for direction in directions {
            if let event = direction.readEvent { event_free(event) }
            if let event = direction.writeEvent { event_free(event) }
            direction.readEvent = nil
            direction.writeEvent = nil
            Glibc.close(direction.pipeRead)
            Glibc.close(direction.pipeWrite)
        }
        directions = []
    }

    private static let readable: event_callback_fn = { _, _, context in
        let direction = Unmanaged<Direction>.fromOpaque(context!).takeUnretainedValue()
        direction.tunnel.fill(direction)
    }

    private static let writable: event_callback_fn = { _, _, context in
        let direction = Unmanaged<Direction>.fromOpaque(context!).takeUnretainedValue()
        direction.tunnel.drainPipe(of: direction)
    }

    private func fill(_ direction: Direction) {
        let read = ipd_splice(direction.from, direction.pipeWrite, SpliceTunnel.chunkBytes, SpliceTunnel.spliceFlags)
        if read == 0 {
            halfClose.sourceClosed(direction.way)
            event_del(direction.readEvent)
            return passHalfClose(direction)
        }
        if read < 0 {
            if errno == EAGAIN || errno == EINTR { return }
            return finish(reason: "read failed: \(String(cString: strerror(errno)))")
        }
        direction.buffered += read
        drainPipe(of: direction)
    }

    /// Writes what the pipe holds; while the destination is full, stops reading the source (flow control).
    private func drainPipe(of direction: Direction) {
        while direction.buffered > 0 {
            let written = ipd_splice(direction.pipeRead, direction.to, direction.buffered, SpliceTunnel.spliceFlags)
            if written > 0 {
                direction.buffered -= written
                direction.bytesMoved += UInt64(written)
                onActivity()
                continue
            }
            if written < 0 && (errno == EAGAIN || errno == EINTR) {
                event_del(direction.readEvent)
                event_add(direction.writeEvent, nil)
                return
            }
            return finish(reason: "write failed: \(String(cString: strerror(errno)))")
        }
        event_del(direction.writeEvent)
        if halfClose.isSourceClosed(direction.way) {
            passHalfClose(direction)
        } else {
            event_add(direction.readEvent, nil)
        }
    }

    private func passHalfClose(_ direction: Direction) {
        guard halfClose.shutIfFlushed(direction.way, pendingBytes: direction.buffered) else { return }
        shutdown(direction.to, Int32(SHUT_WR))
        if halfClose.isFinished { finish(reason: nil) }
    }

    private func finish(reason: String?) {
        guard !finished else { return }
        finished = true
        for direction in directions {
            event_del(direction.readEvent)
            event_del(direction.writeEvent)
        }
        onFinish(reason)
    }

    private static func makePipe() -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        return (fds[0], fds[1])
    }
}

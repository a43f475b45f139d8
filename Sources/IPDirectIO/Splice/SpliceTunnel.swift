import CEvent
import Glibc
import IPDirectCore

/// Relays an established tunnel between two plain sockets, one `SpliceStream` per direction, so the
/// kernel moves the bytes without copying them to user space. A direction borrows a pipe only while
/// bytes are in flight: an idle tunnel holds nothing but its two sockets. Half-close passes through:
/// an EOF read from one side becomes a FIN to the other once everything before it is written.
final class SpliceTunnel {
    private let toUpstream: SpliceStream
    private let toClient: SpliceStream
    private var halfClose = HalfCloseTracker()
    private var finished = false
    /// Called after every wakeup that moved bytes, for the idle timeout.
    var onActivity: () -> Void = {}
    /// Called once when both directions are closed (nil) or one failed (the reason).
    var onFinish: (String?) -> Void = { _ in }

    init(base: EventBase, pool: PipePool, metrics: TrafficMetricsCell, client: Int32, upstream: Int32) {
        toUpstream = SpliceStream(base: base, pool: pool, metrics: metrics, from: client, to: upstream, limit: nil)
        toClient = SpliceStream(base: base, pool: pool, metrics: metrics, from: upstream, to: client, limit: nil)
        toUpstream.onProgress = { [unowned self] moved, end in progressed(.toUpstream, moved: moved, end: end) }
        toClient.onProgress = { [unowned self] moved, end in progressed(.toClient, moved: moved, end: end) }
    }

    deinit { close() }

    var bytesToUpstream: UInt64 { toUpstream.bytesMoved }
    var bytesToClient: UInt64 { toClient.bytesMoved }

    func start() {
        toUpstream.start()
        toClient.start()
    }

    /// Stops both directions and lets go of their pipes (not the sockets, which belong to the session);
    /// idempotent.
    func close() {
        toUpstream.close()
        toClient.close()
    }

    private func progressed(_ way: HalfCloseTracker.Direction, moved: Int, end: SpliceStream.End?) {
        if moved > 0 { onActivity() }
        switch end {
        case nil, .limitReached?:
            return
        case .sourceClosed?:
            halfClose.sourceClosed(way)
            guard halfClose.shutIfFlushed(way, pendingBytes: 0) else { return }
            shutdown(way == .toUpstream ? toUpstream.destination : toClient.destination, Int32(SHUT_WR))
            if halfClose.isFinished { finish(reason: nil) }
        case .failed(let socket, let reason, _)?:
            let side = (way == .toUpstream) == (socket == .source) ? "client" : "upstream"
            finish(reason: "\(socket == .source ? "read" : "write") failed on the \(side) side: \(reason)")
        }
    }

    private func finish(reason: String?) {
        guard !finished else { return }
        finished = true
        close()
        onFinish(reason)
    }
}

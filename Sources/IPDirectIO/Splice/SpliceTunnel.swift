import CEvent
import Glibc
import IPDirectCore

/// Relays an established tunnel between two plain sockets, one `SpliceStream` per direction, so the
/// kernel moves the bytes without copying them to user space. A direction borrows a pipe only while
/// bytes are in flight: an idle tunnel holds nothing but its two sockets. It decides nothing: what each
/// direction moved and a source's FIN (read once every byte before it was written) go to the session's
/// machine, whose one half-close tracker and idle deadline cover the tunnel before and after the hand-over.
final class SpliceTunnel {
    private let toUpstream: SpliceStream
    private let toClient: SpliceStream
    private var failed = false
    /// Bytes one direction moved in one wakeup, and whether its source has closed.
    var onProgress: (_ direction: HalfCloseTracker.Direction, _ moved: Int, _ sourceClosed: Bool) -> Void = { _, _, _ in }
    /// Called once when a direction failed, with the reason; the tunnel is closed by then.
    var onFailure: (String) -> Void = { _ in }

    init(base: EventBase, pool: PipePool, metrics: TrafficMetricsCell, client: Int32, upstream: Int32) {
        toUpstream = SpliceStream(base: base, pool: pool, metrics: metrics, from: client, to: upstream, limit: nil)
        toClient = SpliceStream(base: base, pool: pool, metrics: metrics, from: upstream, to: client, limit: nil)
        toUpstream.onProgress = { [unowned self] moved, end in progressed(.toUpstream, moved: moved, end: end) }
        toClient.onProgress = { [unowned self] moved, end in progressed(.toClient, moved: moved, end: end) }
    }

    deinit { close() }

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
        switch end {
        case nil, .limitReached?:
            if moved > 0 { onProgress(way, moved, false) }
        case .sourceClosed?:
            onProgress(way, moved, true)
        case .failed(let socket, let reason, _)?:
            guard !failed else { return }
            failed = true
            let side = (way == .toUpstream) == (socket == .source) ? "client" : "upstream"
            close()
            onFailure("\(socket == .source ? "read" : "write") failed on the \(side) side: \(reason)")
        }
    }
}

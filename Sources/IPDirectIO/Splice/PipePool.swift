import CEvent
import Glibc

/// One pipe: what splice(2) needs between two sockets, since it moves bytes only to or from a pipe.
struct SplicePipe {
    let read: Int32
    let write: Int32
}

/// The pipes one worker's tunnels and bodies borrow while bytes are in flight, bounded like HAProxy's
/// `maxpipes`: a transfer takes a pipe when its source has bytes and gives it back as soon as the pipe
/// is empty again, so an idle tunnel holds only its two sockets. Owned by one loop, never locked.
final class PipePool {
    /// Empty pipes kept for the next transfer instead of closed: making one costs three syscalls.
    static let idleKept = 64

    /// Pipes this worker may have open at once, busy or idle; a reload may change it.
    var limit: Int {
        didSet { if openCount > limit { closeIdle() } }
    }
    private var idle: [SplicePipe] = []
    /// Pipes open now, busy or idle.
    private(set) var openCount = 0
    private let metrics: TrafficMetricsCell

    init(limit: Int, metrics: TrafficMetricsCell) {
        self.limit = limit
        self.metrics = metrics
    }

    deinit {
        for pipe in idle { PipePool.closeFDs(pipe) }
    }

    /// An empty pipe, or nil when `limit` pipes are busy or the kernel refuses another (out of
    /// descriptors): the caller then moves the bytes through a buffer.
    func take() -> SplicePipe? {
        // Above the limit (a reload lowered it while pipes were busy), idle pipes are not lent again.
        if openCount <= limit, let pipe = idle.popLast() { return pipe }
        guard openCount < limit, let pipe = PipePool.makePipe() else {
            metrics.update { $0.pipeShortages += 1 }
            return nil
        }
        openCount += 1
        metrics.update { $0.pipesOpen += 1 }
        return pipe
    }

    /// Takes back a pipe the caller emptied.
    func giveBack(_ pipe: SplicePipe) {
        guard idle.count < PipePool.idleKept, openCount <= limit else { return discard(pipe) }
        idle.append(pipe)
    }

    /// Closes a pipe that may still hold bytes (its transfer was cut): nobody else may read them.
    func discard(_ pipe: SplicePipe) {
        PipePool.closeFDs(pipe)
        openCount -= 1
        metrics.update { $0.pipesOpen -= 1 }
    }

    /// Closes the idle pipes (the worker is stopping, or a reload shrank the limit).
    func closeIdle() {
        for pipe in idle { discard(pipe) }
        idle = []
    }

    private static func makePipe() -> SplicePipe? {
        var fds: [Int32] = [0, 0]
        guard ipd_pipe2(&fds, O_NONBLOCK | O_CLOEXEC) == 0 else { return nil }
        return SplicePipe(read: fds[0], write: fds[1])
    }

    private static func closeFDs(_ pipe: SplicePipe) {
        Glibc.close(pipe.read)
        Glibc.close(pipe.write)
    }
}

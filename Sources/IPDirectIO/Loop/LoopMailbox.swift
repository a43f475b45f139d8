import CEvent
import Glibc
import Synchronization

/// Lets other threads run work on one event loop: `post` queues a job from any thread and wakes the loop
/// through a pipe; the loop runs queued jobs in order on its own thread.
///
/// Jobs capture loop-owned objects (sessions, lookups) that are not Sendable. That is safe here because a
/// job only ever runs on the loop that owns those objects, which is what `Job` vouches for.
final class LoopMailbox: Sendable {
    struct Job: @unchecked Sendable {
        let run: () -> Void
    }

    private let queue = Mutex<[Job]>([])
    private let pipeRead: Int32
    private let pipeWrite: Int32
    /// Touched only on the owning loop's thread (created in init, freed in deinit).
    private nonisolated(unsafe) var event: OpaquePointer?
    /// Held so the loop is freed after the mailbox's event: a service's objects are torn down in no set order.
    /// Never used, so never touched from another thread.
    private nonisolated(unsafe) let base: EventBase
    /// Bytes drained from the pipe per read; one byte per wake-up is written at most per batch.
    private static let drainChunk = 64

    init(base: EventBase) throws(StartupError) {
        self.base = base
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw StartupError("pipe failed: \(String(cString: strerror(errno)))") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        pipeRead = fds[0]
        pipeWrite = fds[1]
        let context = Unmanaged.passUnretained(self).toOpaque()
        event = event_new(base.raw, pipeRead, Int16(EV_READ | EV_PERSIST), LoopMailbox.woken, context)
        event_add(event, nil)
    }

    deinit {
        if let event { event_free(event) }
        Glibc.close(pipeRead)
        Glibc.close(pipeWrite)
    }

    /// Thread-safe. The first job of a batch wakes the loop; later ones ride along with it.
    func post(_ run: @escaping () -> Void) {
        let wasEmpty = queue.withLock { jobs in
            jobs.append(Job(run: run))
            return jobs.count == 1
        }
        if wasEmpty {
            var byte: UInt8 = 1
            _ = Glibc.write(pipeWrite, &byte, 1)
        }
    }

    private static let woken: event_callback_fn = { fd, _, context in
        let mailbox = Unmanaged<LoopMailbox>.fromOpaque(context!).takeUnretainedValue()
        var scratch = [UInt8](repeating: 0, count: drainChunk)
        while scratch.withUnsafeMutableBytes({ Glibc.read(fd, $0.baseAddress, $0.count) }) > 0 {}
        let jobs = mailbox.queue.withLock { jobs in
            let taken = jobs
            jobs.removeAll(keepingCapacity: true)
            return taken
        }
        for job in jobs { job.run() }
    }
}

import CEvent
import Glibc

/// Starts the thread an event loop runs on: `body` runs there (it dispatches the loop) and holds what
/// it captures until it returns; the buffer chains the thread kept for reuse go back to the C library after.
/// The thread carries `name` (`top -H`, `ps -L`, /proc/PID/task/TID/comm), so each loop's CPU time can be told
/// apart: `worker-0`, `admin`, `resolver`.
enum LoopThread {
    private final class Body {
        let name: String
        let run: () -> Void
        init(_ name: String, _ run: @escaping () -> Void) {
            self.name = name
            self.run = run
        }
    }

    static func start(named name: String, _ body: @escaping () -> Void) -> pthread_t {
        let context = Unmanaged.passRetained(Body(name, body)).toOpaque()
        var thread = pthread_t()
        pthread_create(&thread, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            _ = ipd_set_thread_name(body.name)
            body.run()
            BlockCache.releaseThreadBlocks()
            return nil
        }, context)
        return thread
    }
}

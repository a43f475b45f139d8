import Glibc

/// Starts the thread an event loop runs on: `body` runs there (it dispatches the loop) and holds what
/// it captures until it returns; the buffer chains the thread kept for reuse go back to the C library after.
enum LoopThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    static func start(_ body: @escaping () -> Void) -> pthread_t {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        pthread_create(&thread, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            BlockCache.releaseThreadBlocks()
            return nil
        }, context)
        return thread
    }
}

import CEvent
import IPDirectIO

/// Runs an event loop in a test until a condition holds, never longer than a limit.
package enum LoopDriver {
    /// Upper bound for any single wait in these tests; a hang fails the test instead of blocking it.
    package static let defaultLimitMillis = 10_000

    /// Runs `base` until `done()` is true or `limitMillis` passed; returns `done()`.
    @discardableResult
    package static func run(_ base: EventBase, limitMillis: Int = defaultLimitMillis, until done: () -> Bool) -> Bool {
        let deadline = Timer(base: base)
        var expired = false
        deadline.action = { expired = true }
        deadline.schedule(afterMillis: limitMillis)
        while !done() && !expired {
            event_base_loop(base.raw, Int32(EVLOOP_ONCE))
        }
        deadline.cancel()
        return done()
    }

    /// Runs `base` for `millis`, letting pending I/O (closes, timers) happen.
    package static func run(_ base: EventBase, forMillis millis: Int) {
        run(base, limitMillis: millis) { false }
    }
}

import Glibc
import Testing
@testable import IPDirectIO

@Suite struct EventBaseDispatchTests {
    /// A loop with a timer a minute away, which fires only if nothing else ends the loop.
    private static func baseWithAnEventLeft() -> (EventBase, Timer) {
        let base = EventBase()
        let pending = Timer(base: base)
        pending.action = { Issue.record("the loop ran until its last event instead of ending") }
        pending.schedule(afterMillis: 60_000)
        return (base, pending)
    }

    @Test func theLoopEndsOnBreakWithEventsLeft() {
        let (base, pending) = Self.baseWithAnEventLeft()
        defer { withExtendedLifetime(pending) {} }
        var turns = 0
        let ticker = Timer(base: base)
        ticker.action = {
            turns += 1
            if turns == 3 { base.loopBreak() } else { ticker.schedule(afterMillis: 0) }
        }
        ticker.schedule(afterMillis: 0)
        base.dispatch()
        #expect(turns == 3)
    }

    @Test func theLoopEndsOnExitWithEventsLeft() {
        let (base, pending) = Self.baseWithAnEventLeft()
        defer { withExtendedLifetime(pending) {} }
        var exited = false
        let exiting = Timer(base: base)
        exiting.action = {
            exited = true
            base.loopExit()
        }
        exiting.schedule(afterMillis: 1)
        base.dispatch()
        #expect(exited)
    }

    @Test func theLoopRunsAgainAfterABreak() {
        let (base, pending) = Self.baseWithAnEventLeft()
        defer { withExtendedLifetime(pending) {} }
        var fired = 0
        let timer = Timer(base: base)
        timer.action = {
            fired += 1
            base.loopBreak()
        }
        timer.schedule(afterMillis: 0)
        base.dispatch()
        timer.schedule(afterMillis: 0)
        base.dispatch()
        #expect(fired == 2)
    }

    @Test func theLoopEndsWhenNoEventIsLeft() {
        let base = EventBase()
        var fired = 0
        let timer = Timer(base: base)
        timer.action = {
            fired += 1
            if fired < 3 { timer.schedule(afterMillis: 1) }
        }
        timer.schedule(afterMillis: 0)
        base.dispatch()
        #expect(fired == 3)
    }
}

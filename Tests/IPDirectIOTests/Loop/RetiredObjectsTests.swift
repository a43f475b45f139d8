import Testing
@testable import IPDirectIO

/// An object retired on a loop (`EventBase.retire(_:)`) lives until the turn that retired it ends, so a
/// callback that lets go of its own owner can still run on it; then it is freed, or when the loop itself is.
@Suite struct RetiredObjectsTests {
    final class Owner {
        let freed: () -> Void
        init(freed: @escaping () -> Void) { self.freed = freed }
        deinit { freed() }
    }

    @Test func aRetiredObjectLivesUntilItsTurnEnds() {
        let base = EventBase()
        var freedDuringTurn = false
        var freed = false
        var owner: Owner? = Owner { freed = true }
        let timer = Timer(base: base)
        timer.action = {
            base.retire(owner!)
            owner = nil
            freedDuringTurn = freed
        }
        timer.schedule(afterMillis: 0)
        base.dispatch()
        #expect(!freedDuringTurn, "freed while the callback that let go of it still ran")
        #expect(freed, "still held once the turn had ended")
    }

    @Test func objectsRetiredOutsideTheLoopGoWithIt() {
        var freed = false
        do {
            let base = EventBase()
            base.retire(Owner { freed = true })
            #expect(!freed)
        }
        #expect(freed)
    }
}

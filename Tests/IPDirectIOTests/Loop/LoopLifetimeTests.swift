import Testing
@testable import IPDirectIO

/// An event base is freed only after the events made on it: the objects that own a loop and its timers or
/// mailbox (a service's engines, probes and retired engines) are torn down in no set order, and freeing an
/// event after its base reads freed memory.
@Suite struct LoopLifetimeTests {
    @Test func aTimerKeepsItsLoop() {
        var base: EventBase? = EventBase()
        weak let watched = base
        var timer: Timer? = Timer(base: base!)
        timer?.schedule(afterMillis: 60_000)
        base = nil
        #expect(watched != nil, "the loop went before its timer's event")
        timer = nil
        #expect(watched == nil)
    }

    @Test func aMailboxKeepsItsLoop() throws {
        var base: EventBase? = EventBase()
        weak let watched = base
        var mailbox: LoopMailbox? = try LoopMailbox(base: base!)
        base = nil
        #expect(watched != nil, "the loop went before its mailbox's event")
        mailbox = nil
        #expect(watched == nil)
    }
}

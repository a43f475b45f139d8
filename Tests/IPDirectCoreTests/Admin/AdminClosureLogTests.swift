import Testing
@testable import IPDirectCore

/// A flood of closed admin connections makes one warning line per reason and window, not one per connection.
@Suite struct AdminClosureLogTests {
    static let window = AdminClosureLog.windowMicros

    @Test func theFirstClosureOfAReasonIsAWarning() {
        var log = AdminClosureLog()
        #expect(log.note(.perClientLimit, now: 0) == .warning(suppressed: 0))
        #expect(log.note(.headTimeout, now: 1) == .warning(suppressed: 0))
    }

    @Test func aFloodWithinTheWindowIsCountedAtDebugAndReportedWithTheNextWarning() {
        var log = AdminClosureLog()
        _ = log.note(.perClientLimit, now: 0)
        for step in 1...1_000 {
            #expect(log.note(.perClientLimit, now: Int64(step)) == .debug)
        }
        #expect(log.note(.perClientLimit, now: Self.window) == .warning(suppressed: 1_000))
        #expect(log.note(.perClientLimit, now: Self.window + 1) == .debug)
        #expect(log.note(.perClientLimit, now: 2 * Self.window) == .warning(suppressed: 1))
    }

    @Test func eachReasonHasItsOwnWindow() {
        var log = AdminClosureLog()
        _ = log.note(.perClientLimit, now: 0)
        #expect(log.note(.connectionLimit, now: 1) == .warning(suppressed: 0))
        #expect(log.note(.perClientLimit, now: 2) == .debug)
    }

    @Test func anIdleKeptAliveConnectionIsNeverAWarning() {
        var log = AdminClosureLog()
        #expect(log.note(.idle, now: 0) == .debug)
        #expect(log.note(.idle, now: 10 * Self.window) == .debug)
    }
}

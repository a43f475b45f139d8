import Glibc
import Testing
@testable import IPDirectIO

@Suite struct TurnClockTests {
    private static func sleepMillis(_ millis: Int) { usleep(UInt32(millis * 1000)) }

    @Test func outsideTheLoopEveryReadingIsFresh() {
        let base = EventBase()
        let first = base.clock.nowMicros
        Self.sleepMillis(3)
        #expect(base.clock.nowMicros - first >= 3000)
    }

    @Test func oneTurnReadsTheClockOnce() {
        let base = EventBase()
        var readings: [Int64] = []
        let timer = Timer(base: base)
        timer.action = {
            readings.append(base.clock.nowMicros)
            Self.sleepMillis(3)
            readings.append(base.clock.nowMicros)
        }
        timer.schedule(afterMillis: 0)
        base.dispatch()
        #expect(readings.count == 2)
        #expect(readings.first == readings.last)
    }

    @Test func eachTurnReadsTheClockAgain() {
        let base = EventBase()
        var readings: [Int64] = []
        let first = Timer(base: base)
        let second = Timer(base: base)
        first.action = {
            readings.append(base.clock.nowMicros)
            // libevent times the delay from the start of this turn, a little before the reading above: 10 ms
            // leaves room for that, so the next turn's reading is still at least 5 ms after this one.
            second.schedule(afterMillis: 10)
        }
        second.action = { readings.append(base.clock.nowMicros) }
        first.schedule(afterMillis: 0)
        base.dispatch()
        #expect(readings.count == 2)
        #expect(readings[1] - readings[0] >= 5000)
    }

    @Test func afterTheLoopEndsReadingsAreFreshAgain() {
        let base = EventBase()
        let timer = Timer(base: base)
        var inTurn: Int64 = 0
        timer.action = { inTurn = base.clock.nowMicros }
        timer.schedule(afterMillis: 0)
        base.dispatch()
        Self.sleepMillis(3)
        #expect(base.clock.nowMicros - inTurn >= 3000)
    }
}

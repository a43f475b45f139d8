import Testing
@testable import IPDirectCore

/// RFC 8305 §5 racing as a table of events and the actions they cause.
@Suite struct ConnectionRaceTests {
    enum Event {
        case begin, delay, failed(Int), connected(Int)
    }

    static func run(_ count: Int, _ events: [Event]) -> [[ConnectionRace.Action]] {
        var race = ConnectionRace(addressCount: count, delayMillis: 250)
        return events.map { event in
            switch event {
            case .begin: return race.begin()
            case .delay: return race.delayElapsed()
            case .failed(let index): return race.attemptFailed(index)
            case .connected(let index): return race.attemptConnected(index)
            }
        }
    }

    @Test func startsTheFirstAddressAndArmsTheAttemptDelay() {
        #expect(Self.run(3, [.begin]) == [[.start(0), .armDelay(millis: 250)]])
    }

    @Test func startsTheNextAddressWhenTheDelayPassesWhileTheFirstKeepsTrying() {
        let actions = Self.run(3, [.begin, .delay, .connected(0)])
        #expect(actions[1] == [.start(1), .armDelay(millis: 250)])
        #expect(actions[2] == [.abandon(1), .won(0)])
    }

    @Test func aLaterAddressThatConnectsFirstWinsAndTheSlowOneIsAbandoned() {
        let actions = Self.run(2, [.begin, .delay, .connected(1)])
        #expect(actions[1] == [.start(1)])
        #expect(actions[2] == [.abandon(0), .won(1)])
    }

    @Test func aFailureStartsTheNextAddressAtOnce() {
        let actions = Self.run(3, [.begin, .failed(0)])
        #expect(actions[1] == [.start(1), .armDelay(millis: 250)])
    }

    @Test func theRaceIsLostOnlyWhenEveryAddressFailed() {
        let actions = Self.run(2, [.begin, .delay, .failed(1), .failed(0)])
        #expect(actions[2] == [])
        #expect(actions[3] == [.lost])
    }

    @Test func noAddressesLoseAtOnce() {
        #expect(Self.run(0, [.begin]) == [[.lost]])
    }

    @Test func eventsAfterTheRaceEndedAreIgnored() {
        let actions = Self.run(2, [.begin, .connected(0), .delay, .failed(0), .connected(1)])
        #expect(actions[1] == [.won(0)])
        let later = actions[2...].flatMap { $0 }
        #expect(later.isEmpty)
    }

    @Test func aSingleAddressArmsNoDelay() {
        #expect(Self.run(1, [.begin, .delay]) == [[.start(0)], []])
    }

    @Test func countsStartedAttempts() {
        var race = ConnectionRace(addressCount: 3, delayMillis: 250)
        _ = race.begin()
        _ = race.delayElapsed()
        #expect(race.startedCount == 2)
    }
}

import Testing
@testable import IPDirectCore

@Suite struct SecondsLeftByFamilyTests {
    @Test func readsAndWritesEachFamilyApart() {
        var left: SecondsLeftByFamily = [.v6: 40]
        #expect(left[.v4] == nil && left[.v6] == 40)
        left[.v4] = 100
        left[.v6] = nil
        #expect(left == [.v4: 100])
    }

    @Test(arguments: [
        (SecondsLeftByFamily(), Int64?.none), ([.v4: 100], 100), ([.v6: 40], 40), ([.v4: 100, .v6: 40], 40), ([.v4: -3, .v6: 40], -3),
    ] as [(SecondsLeftByFamily, Int64?)])
    func theSoonestIsTheFamilyThatRunsOutFirst(_ left: SecondsLeftByFamily, _ soonest: Int64?) {
        #expect(left.soonest == soonest)
    }
}

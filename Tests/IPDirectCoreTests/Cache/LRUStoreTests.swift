import Testing
@testable import IPDirectCore

@Suite struct LRUStoreTests {
    @Test func evictsTheLeastRecentlyUsedKeyAndReportsIt() {
        var store = LRUStore<String, Int>(capacity: 2)
        #expect(store.set("a", 1) == nil)
        #expect(store.set("b", 2) == nil)
        #expect(store.use("a") == 1)
        let evicted = store.set("c", 3)
        #expect(evicted?.key == "b")
        #expect(evicted?.value == 2)
        #expect(store.entriesByRecency.map(\.key) == ["c", "a"])
    }

    @Test func replacingAKeyEvictsNothingAndMakesItMostRecent() {
        var store = LRUStore<String, Int>(capacity: 2)
        store.set("a", 1)
        store.set("b", 2)
        #expect(store.set("a", 10) == nil)
        #expect(store.count == 2)
        #expect(store.entriesByRecency.map(\.value) == [10, 2])
    }

    @Test func peekAndUpdateLeaveRecencyAlone() {
        var store = LRUStore<String, Int>(capacity: 3)
        store.set("a", 1)
        store.set("b", 2)
        #expect(store.peek("a") == 1)
        store.update("a") { $0 += 5 }
        #expect(store.entriesByRecency.map(\.key) == ["b", "a"])
        #expect(store.peek("a") == 6)
    }

    @Test func removedSlotsAreReusedWithoutLosingOrder() {
        var store = LRUStore<Int, Int>(capacity: 4)
        for key in 0..<4 { store.set(key, key) }
        store.remove(1)
        store.remove(2)
        store.set(5, 5)
        store.set(6, 6)
        #expect(store.entriesByRecency.map(\.key) == [6, 5, 3, 0])
        // Churn far past the capacity keeps exactly the last four.
        for key in 100..<1_000 { store.set(key, key) }
        #expect(store.entriesByRecency.map(\.key) == [999, 998, 997, 996])
        store.removeAll()
        #expect(store.count == 0)
        #expect(store.entriesByRecency.isEmpty)
        store.set(1, 1)
        #expect(store.use(1) == 1)
    }

    @Test func aCapacityBelowOneIsRaisedToOne() {
        var store = LRUStore<String, Int>(capacity: 0)
        store.set("a", 1)
        store.set("b", 2)
        #expect(store.count == 1)
        #expect(store.peek("b") == 2)
    }
}

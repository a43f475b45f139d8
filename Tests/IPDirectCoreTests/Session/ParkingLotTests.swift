import Testing
@testable import IPDirectCore

/// Parked values come back by ticket, leave in deadline order, and a ticket that outlived its value never
/// reaches another.
@Suite struct ParkingLotTests {
    @Test func aParkedValueComesBackByItsTicketOnce() {
        var lot = ParkingLot<String>()
        let ticket = lot.park("a", until: 10)
        #expect(lot[ticket] == "a")
        #expect(lot.count == 1)
        #expect(lot.take(ticket) == "a")
        #expect(lot.take(ticket) == nil)
        #expect(lot[ticket] == nil)
        #expect(lot.isEmpty)
        #expect(lot.earliestDeadline == nil)
    }

    @Test func aStaleTicketDoesNotReachTheValueParkedInItsSlotLater() {
        var lot = ParkingLot<String>()
        let first = lot.park("first", until: 10)
        _ = lot.take(first)
        let second = lot.park("second", until: 20)
        #expect(second.slot == first.slot)
        #expect(lot[first] == nil)
        #expect(lot.take(first) == nil)
        let updated: Void? = lot.update(first) { $0 = "changed" }
        #expect(updated == nil)
        let rescheduled = lot.reschedule(first, until: 0)
        #expect(!rescheduled)
        #expect(lot[second] == "second")
        #expect(lot.earliestDeadline == 20)
    }

    @Test func aTicketSurvivesPackingIntoOneWord() {
        var lot = ParkingLot<Int>()
        for value in 0..<100 { _ = lot.park(value, until: Int64(value)) }
        let ticket = lot.park(7, until: 1)
        let unpacked = ParkingLot<Int>.Ticket(packed: ticket.packed)
        #expect(unpacked == ticket)
        #expect(lot[unpacked] == 7)
        #expect(ParkingLot<Int>.Ticket(packed: 0xFFFF_FFFF_0000_0001).generation == 0xFFFF_FFFF)
    }

    @Test func valuesExpireInDeadlineOrderWhateverOrderTheyCameIn() {
        var lot = ParkingLot<Int64>()
        var generator = SplitMix64(seed: 12)
        var deadlines: [Int64] = []
        for _ in 0..<500 {
            let deadline = Int64(generator.next() % 10_000)
            deadlines.append(deadline)
            _ = lot.park(deadline, until: deadline)
        }
        var expired: [Int64] = []
        while let ticket = lot.firstExpired(now: Int64.max) {
            expired.append(lot.take(ticket)!)
        }
        #expect(expired == deadlines.sorted())
    }

    @Test func nothingExpiresBeforeItsDeadline() {
        var lot = ParkingLot<String>()
        _ = lot.park("late", until: 200)
        let early = lot.park("early", until: 100)
        #expect(lot.firstExpired(now: 99) == nil)
        #expect(lot.firstExpired(now: 100) == early)
        #expect(lot.earliestDeadline == 100)
    }

    @Test func valuesLeavingEarlyKeepTheRestInDeadlineOrder() {
        var lot = ParkingLot<Int64>()
        var generator = SplitMix64(seed: 99)
        var tickets: [ParkingLot<Int64>.Ticket] = []
        for _ in 0..<400 {
            let deadline = Int64(generator.next() % 1_000)
            tickets.append(lot.park(deadline, until: deadline))
        }
        var remaining: [Int64] = []
        for (index, ticket) in tickets.enumerated() {
            if index % 3 == 0 {
                _ = lot.take(ticket)
            } else {
                remaining.append(lot[ticket]!)
            }
        }
        #expect(lot.count == remaining.count)
        var expired: [Int64] = []
        while let ticket = lot.firstExpired(now: Int64.max) {
            expired.append(lot.take(ticket)!)
        }
        #expect(expired == remaining.sorted())
    }

    @Test func aRescheduledValueMovesToItsNewPlaceInTheOrder() {
        var lot = ParkingLot<String>()
        let a = lot.park("a", until: 10)
        _ = lot.park("b", until: 20)
        let c = lot.park("c", until: 30)
        let movedLater = lot.reschedule(a, until: 40)
        let movedEarlier = lot.reschedule(c, until: 5)
        #expect(movedLater && movedEarlier)
        var order: [String] = []
        while let ticket = lot.firstExpired(now: 100) {
            order.append(lot.take(ticket)!)
        }
        #expect(order == ["c", "b", "a"])
    }

    @Test func anyMixOfArrivalsDeparturesAndNewDeadlinesExpiresInDeadlineOrder() {
        var lot = ParkingLot<Int>()
        var generator = SplitMix64(seed: 7)
        // The model: what is parked, by ticket, with its deadline and value.
        var model: [ParkingLot<Int>.Ticket: (deadline: Int64, value: Int)] = [:]
        for step in 0..<2_000 {
            let deadline = Int64(generator.next() % 100_000)
            switch generator.next() % 4 {
            case 0, 1:
                model[lot.park(step, until: deadline)] = (deadline, step)
            case 2:
                guard let ticket = model.keys.randomElement(using: &generator) else { continue }
                #expect(lot.take(ticket) == model.removeValue(forKey: ticket)?.value)
            default:
                guard let ticket = model.keys.randomElement(using: &generator) else { continue }
                let moved = lot.reschedule(ticket, until: deadline)
                #expect(moved)
                model[ticket]?.deadline = deadline
            }
            #expect(lot.earliestDeadline == model.values.map(\.deadline).min())
        }
        var expired: [Int64] = []
        while let ticket = lot.firstExpired(now: Int64.max) {
            expired.append(model[ticket]!.deadline)
            #expect(lot.take(ticket) == model.removeValue(forKey: ticket)?.value)
        }
        #expect(model.isEmpty)
        #expect(expired == expired.sorted())
    }

    @Test func updateChangesTheParkedValueInPlace() {
        var lot = ParkingLot<[Int]>()
        let ticket = lot.park([1], until: 0)
        let count = lot.update(ticket) { value -> Int in
            value.append(2)
            return value.count
        }
        #expect(count == 2)
        #expect(lot[ticket] == [1, 2])
    }

    @Test func ticketsListEveryParkedValueOnce() {
        var lot = ParkingLot<Int>()
        let kept = (0..<130).map { lot.park($0, until: Int64($0 % 7)) }
        for ticket in kept where ticket.slot % 2 == 0 { _ = lot.take(ticket) }
        let listed = lot.tickets
        #expect(Set(listed) == Set(kept.filter { $0.slot % 2 == 1 }))
        #expect(listed.count == 65)
    }

    @Test func slotsFreedByDeparturesAreReusedBeforeTheLotGrows() {
        var lot = ParkingLot<Int>()
        var tickets = (0..<100).map { lot.park($0, until: 0) }
        let capacity = lot.capacity
        for round in 0..<50 {
            for ticket in tickets { _ = lot.take(ticket) }
            tickets = (0..<100).map { lot.park($0 + round, until: Int64(round)) }
        }
        #expect(lot.capacity == capacity)
        #expect(capacity == 100)
        #expect(lot.count == 100)
    }
}

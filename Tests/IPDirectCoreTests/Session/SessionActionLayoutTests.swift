import Testing
@testable import IPDirectCore

/// The driver switches over every action it performs: with no payload wider than one word, the actions
/// without one are told apart by a single comparison and the switch is a jump table. A wider payload made
/// it a chain of two-word comparisons, several hundred instructions per request.
@Suite struct SessionActionLayoutTests {
    @Test func anActionIsAPlainValueOfOneWordAndItsTag() {
        #expect(_isPOD(SessionAction.self))
        #expect(MemoryLayout<SessionAction>.size <= MemoryLayout<Int>.size + 1)
    }
}

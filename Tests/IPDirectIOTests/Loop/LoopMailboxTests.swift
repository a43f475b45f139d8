import Glibc
import Testing
@testable import IPDirectIO

@Suite struct LoopMailboxTests {
    /// Jobs posted from other threads run on the loop's thread, each exactly once, in the order each
    /// thread posted them.
    @Test func jobsFromOtherThreadsRunOnTheLoopInOrder() throws {
        let base = EventBase()
        let mailbox = try LoopMailbox(base: base)
        let loopThread = pthread_self()
        var seen: [Int] = []
        var ranElsewhere = false
        let total = 2_000
        final class Box: @unchecked Sendable { let mailbox: LoopMailbox; init(_ m: LoopMailbox) { mailbox = m } }
        let box = Box(mailbox)
        var poster = pthread_t()
        let context = Unmanaged.passRetained(box).toOpaque()
        pthread_create(&poster, nil, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            for _ in 0..<1000 { box.mailbox.post {} }
            return nil
        }, context)
        for number in 0..<total {
            mailbox.post {
                if pthread_equal(pthread_self(), loopThread) == 0 { ranElsewhere = true }
                seen.append(number)
                if seen.count == total { base.loopBreak() }
            }
        }
        base.dispatch()
        pthread_join(poster, nil)
        #expect(seen == Array(0..<total))
        #expect(!ranElsewhere)
    }
}

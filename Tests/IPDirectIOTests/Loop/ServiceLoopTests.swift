import Glibc
import Testing
@testable import IPDirectIO

@Suite struct ServiceLoopTests {
    /// What the loop's work saw, in the order it ran; read by the test once `stop` has joined the thread.
    final class Journal {
        var entries: [String] = []
        var ranOnLoopThread: [Bool] = []
        let loop: () -> ServiceLoop<Journal>?

        init(loop: @escaping () -> ServiceLoop<Journal>?) { self.loop = loop }

        func note(_ entry: String) {
            entries.append(entry)
            ranOnLoopThread.append(loop()?.isOnLoopThread ?? false)
        }
    }

    private static func makeLoop() throws -> (ServiceLoop<Journal>, Journal) {
        weak var made: ServiceLoop<Journal>?
        var journal: Journal?
        let loop = try ServiceLoop(named: "test-loop") { _, _ in
            let created = Journal { made }
            journal = created
            return created
        }
        made = loop
        return (loop, journal!)
    }

    @Test func theLoopThreadCarriesItsName() throws {
        let (loop, journal) = try Self.makeLoop()
        loop.start { $0.note(Self.currentThreadName()) }
        #expect(loop.stop { _ in })
        #expect(journal.entries == ["test-loop"])
    }

    /// The calling thread's name as the kernel keeps it (/proc/thread-self/comm, without its line feed).
    private static func currentThreadName() -> String {
        let fd = open("/proc/thread-self/comm", O_RDONLY)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return String(decoding: bytes.prefix(max(0, count)).filter { $0 != 0x0A }, as: UTF8.self)
    }

    @Test func setupRunsBeforeWorkPostedEarlierAndTeardownAfterAllPostedWork() throws {
        let (loop, journal) = try Self.makeLoop()
        loop.post { $0.note("posted before start") }
        loop.start { $0.note("setup") }
        loop.post { $0.note("posted after start") }
        #expect(loop.stop { $0.note("teardown") })
        #expect(journal.entries == ["setup", "posted before start", "posted after start", "teardown"])
        #expect(journal.ranOnLoopThread == [true, true, true, true])
    }

    @Test func stopBeforeStartDoesNothing() throws {
        let (loop, journal) = try Self.makeLoop()
        #expect(!loop.stop { $0.note("teardown") })
        #expect(journal.entries.isEmpty)
    }

    @Test func secondStopReturnsAtOnceWithoutTearingDownAgain() throws {
        let (loop, journal) = try Self.makeLoop()
        loop.start()
        #expect(loop.stop { $0.note("teardown") })
        #expect(!loop.stop { $0.note("teardown again") })
        #expect(journal.entries == ["teardown"])
    }

    @Test func secondStartKeepsTheRunningThread() throws {
        let (loop, journal) = try Self.makeLoop()
        loop.start { $0.note("setup") }
        loop.start { $0.note("second setup") }
        loop.stop()
        #expect(journal.entries == ["setup"])
    }

    @Test func workPostedFromAnotherThreadRunsOnTheLoopThread() throws {
        let (loop, journal) = try Self.makeLoop()
        let testThread = pthread_self()
        var ranOnTestThread = false
        loop.start()
        let poster = LoopThread.start(named: "poster") {
            for number in 0..<100 {
                loop.post { journal in
                    if pthread_equal(pthread_self(), testThread) != 0 { ranOnTestThread = true }
                    journal.note("\(number)")
                }
            }
        }
        pthread_join(poster, nil)
        loop.stop()
        #expect(journal.entries == (0..<100).map { "\($0)" })
        #expect(journal.ranOnLoopThread.allSatisfy { $0 })
        #expect(!ranOnTestThread)
    }

    @Test func onlyTheRunningLoopThreadIsTheLoopThread() throws {
        let (loop, _) = try Self.makeLoop()
        #expect(!loop.isOnLoopThread)
        loop.start()
        #expect(!loop.isOnLoopThread)
        loop.stop()
        #expect(!loop.isOnLoopThread)
    }
}

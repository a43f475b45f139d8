import Glibc
import Testing
@testable import IPDirectIO

/// The pipes a worker lends out: bounded, reused once given back empty, counted in the worker's metrics.
@Suite struct PipePoolTests {
    /// The open file a descriptor refers to (device and inode), nil when it is closed. Tests run in
    /// parallel and may reuse a closed number at once, so "closed" means "no longer this pipe".
    static func openFile(_ fd: Int32) -> [UInt64]? {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        return [UInt64(status.st_dev), UInt64(status.st_ino)]
    }

    @Test func lendsNoMoreThanItsLimitAndCountsTheShortage() throws {
        let metrics = TrafficMetricsCell()
        let pool = PipePool(limit: 2, metrics: metrics)
        let first = try #require(pool.take())
        let second = try #require(pool.take())
        #expect(pool.take() == nil)
        #expect(metrics.snapshot.pipesOpen == 2)
        #expect(metrics.snapshot.pipeShortages == 1)
        pool.discard(first)
        pool.discard(second)
    }

    @Test func aPipeGivenBackIsLentAgainInsteadOfANewOne() throws {
        let metrics = TrafficMetricsCell()
        let pool = PipePool(limit: 1, metrics: metrics)
        let pipe = try #require(pool.take())
        pool.giveBack(pipe)
        let again = try #require(pool.take())
        #expect(again.read == pipe.read && again.write == pipe.write)
        #expect(metrics.snapshot.pipesOpen == 1)
        pool.discard(again)
    }

    @Test func aDiscardedPipeIsClosedAndMakesRoomForANewOne() throws {
        let metrics = TrafficMetricsCell()
        let pool = PipePool(limit: 1, metrics: metrics)
        let pipe = try #require(pool.take())
        let files = (Self.openFile(pipe.read), Self.openFile(pipe.write))
        pool.discard(pipe)
        #expect(Self.openFile(pipe.read) != files.0 && Self.openFile(pipe.write) != files.1)
        #expect(metrics.snapshot.pipesOpen == 0)
        let next = try #require(pool.take())
        pool.discard(next)
    }

    @Test func lendsNonBlockingCloseOnExecPipes() throws {
        let pool = PipePool(limit: 1, metrics: TrafficMetricsCell())
        let pipe = try #require(pool.take())
        for fd in [pipe.read, pipe.write] {
            #expect(fcntl(fd, F_GETFL) & O_NONBLOCK != 0)
            #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
        }
        pool.discard(pipe)
    }

    @Test func aPipeBusyWhileTheLimitWasLoweredIsClosedWhenGivenBack() throws {
        let metrics = TrafficMetricsCell()
        let pool = PipePool(limit: 2, metrics: metrics)
        let busy = try #require(pool.take())
        let idle = try #require(pool.take())
        pool.giveBack(idle)
        pool.limit = 0
        #expect(pool.take() == nil)
        let files = (Self.openFile(busy.read), Self.openFile(busy.write))
        pool.giveBack(busy)
        #expect(pool.openCount == 0)
        #expect(metrics.snapshot.pipesOpen == 0)
        #expect(Self.openFile(busy.read) != files.0 && Self.openFile(busy.write) != files.1)
    }

    @Test func loweringTheLimitClosesIdlePipesBeyondIt() throws {
        let metrics = TrafficMetricsCell()
        let pool = PipePool(limit: 2, metrics: metrics)
        let first = try #require(pool.take())
        let second = try #require(pool.take())
        pool.giveBack(first)
        pool.giveBack(second)
        pool.limit = 1
        #expect(pool.openCount <= 1)
        #expect(metrics.snapshot.pipesOpen == Int64(pool.openCount))
    }
}

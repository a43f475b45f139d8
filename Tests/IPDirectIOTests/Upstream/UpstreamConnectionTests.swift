import CEvent
import Glibc
import Testing
@testable import IPDirectCore
@testable import IPDirectIO
import IPDirectTesting

/// An upstream connection keeps the flow settings sessions give it across the requests it carries.
@Suite struct UpstreamConnectionTests {
    @Test func flowSettingsAreGivenOncePerConnectionAndAgainWhenTheLimitChanges() throws {
        let base = EventBase()
        let pair = try UpstreamPoolTests.Pair(base: base, address: UpstreamPoolTests.first)
        let connection = pair.connection
        connection.setFlow(readHighWater: 100, drainAt: 10, maxSingleIO: 4096)
        #expect(connection.socket.readHighWater == 100)
        // A later request with the same limit leaves the socket alone, even a watermark changed meanwhile.
        connection.socket.setWatermarks(readHigh: 50, drainAt: 10)
        connection.setFlow(readHighWater: 100, drainAt: 10, maxSingleIO: 4096)
        #expect(connection.socket.readHighWater == 50)
        // A reload that changed the limit reaches the connection.
        connection.setFlow(readHighWater: 200, drainAt: 10, maxSingleIO: 4096)
        #expect(connection.socket.readHighWater == 200)
    }
}

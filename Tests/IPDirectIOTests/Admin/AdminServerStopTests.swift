import Testing
@testable import IPDirectIO
import IPDirectTesting

/// Stopping the admin listener ends its clients' connections then and there, not when the process exits.
@Suite struct AdminServerStopTests {
    @Test func stoppingClosesEveryOpenConnection() throws {
        let admin = try RunningAdminServer()
        var stopped = false
        defer { if !stopped { admin.stop() } }
        let (answered, status) = try admin.connectionAnsweredOnce()
        #expect(status == 200)
        let silent = try admin.connect()
        #expect(silent.wait(millis: 50) == .nothing, "an open connection that asked nothing yet")
        admin.stop()
        stopped = true
        #expect(answered.closedByPeer(limitMillis: 1_000), "a kept-alive connection sees the close at stop")
        #expect(silent.closedByPeer(limitMillis: 1_000), "a connection that sent nothing sees the close at stop")
    }

}

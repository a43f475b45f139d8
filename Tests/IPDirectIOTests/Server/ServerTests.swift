import IPDirectCore
import Testing
@testable import IPDirectIO

@Suite struct ServerTests {
    static let twoWorkers = """
        [proxy]
        workers = 2
        listen = ["127.0.0.1:0"]
        access_log = "off"
        max_connections = 100
        [resolver]
        order = ["hosts"]
        [admin]
        listen = []
        """

    @Test func everyWorkerOriginatesTLSThroughTheServersOneContext() throws {
        let config = try Config.parse(ServerTests.twoWorkers).get()
        let server = try Server(config: config)
        #expect(server.workers.count == 2)
        #expect(server.workers.allSatisfy { $0.connectionSettings.tls === server.tls })
    }
}

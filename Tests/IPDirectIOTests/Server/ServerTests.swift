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

    @Test func everyWorkerKnowsTheBoundListenersAndTheMachinesAddresses() throws {
        var config = try Config.parse(ServerTests.twoWorkers).get()
        config.admin.listen = [SocketAddress("127.0.0.1:0")!]
        let server = try Server(config: config)
        let listeners = server.workers[0].connectionSettings.rules.policy.ownEndpoints.listeners
        // Port 0 in the file: the set holds the ports the kernel chose.
        #expect(listeners.map(\.role) == [.proxy, .admin])
        #expect(listeners.allSatisfy { $0.address.ip == IPAddress("127.0.0.1")! && $0.address.port != 0 })
        #expect(listeners[0].address == server.listenAddresses[0])
        #expect(server.workers.allSatisfy { $0.ownEndpoints == server.workers[0].ownEndpoints })
        #expect(server.workers[0].ownEndpoints.interfaceAddresses.contains(IPAddress("127.0.0.1")!))
    }

    @Test func aNetworkChangeGivesNewConnectionsTheNewInterfaceAddresses() throws {
        let server = try Server(config: try Config.parse(ServerTests.twoWorkers).get())
        let worker = server.workers[0]
        let before = worker.connectionSettings
        worker.apply(interfaceAddresses: [IPAddress("192.0.2.99")!])
        #expect(worker.connectionSettings !== before)
        #expect(worker.connectionSettings.rules.policy.ownEndpoints.interfaceAddresses == [IPAddress("192.0.2.99")!])
        #expect(before.rules.policy.ownEndpoints.interfaceAddresses.contains(IPAddress("127.0.0.1")!))
    }
}

import IPDirectCore
@testable import IPDirectIO
import IPDirectTesting

/// A real admin listener on 127.0.0.1 at a port the kernel chose, serving on its own thread, with a metrics
/// registry over one traffic cell the test writes to. Its resolver never starts: these tests ask nothing
/// that needs a lookup. `stop()` must end every test, so its thread is joined before the next one runs.
final class RunningAdminServer {
    let server: AdminServer
    /// The port the listener is bound to.
    let port: UInt16
    /// The one worker cell `/metrics` adds up.
    let traffic = TrafficMetricsCell()

    /// `adminKeys`: lines added to `[admin]`, such as `header_timeout = 0.3`.
    init(adminKeys: String = "") throws {
        let config = try Config.parse("""
            [resolver]
            order = ["hosts"]
            [admin]
            listen = ["127.0.0.1:0"]
            \(adminKeys)
            """).get()
        let socket = try ListeningSocket(address: config.admin.listen[0])
        let resolver = try ResolverService(config: config, persistCache: false)
        server = try AdminServer(sockets: [socket], config: config,
                                 registry: MetricsRegistry(workers: [traffic], resolver: resolver),
                                 resolverService: resolver)
        port = socket.boundAddress.port
        server.start()
    }

    /// A new connection to the listener from `source`, 127.0.0.1 unless another loopback address is named.
    func connect(from source: String = "127.0.0.1") throws -> LoopbackHTTPClient {
        try LoopbackHTTPClient(port: port, source: LoopbackHTTPClient.address(source))
    }

    /// A new connection from `source` after its first `/healthz`, with the status that answered it: once
    /// answered, the connection is counted against its address.
    func connectionAnsweredOnce(from source: String = "127.0.0.1") throws -> (client: LoopbackHTTPClient, status: Int?) {
        let client = try connect(from: source)
        client.send(get("/healthz"))
        return (client, client.readResponse()?.status)
    }

    /// A GET of `target` with a Host naming the listener by address and port.
    func get(_ target: String) -> String {
        "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
    }

    func stop() {
        server.stop()
    }
}

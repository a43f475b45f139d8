import Foundation

/// A real nginx on loopback for transport tests, with a certificate for `NginxFixture.hostName` made at
/// test time by the openssl CLI. Everything lives in its own temporary directory.
///
/// - `h2Port`: TLS with `http2` (ALPN h2), at most `maxConcurrentStreams` streams per connection.
/// - `tlsPort`: TLS without http2, so ALPN settles on http/1.1.
/// - `plainPort`: plain HTTP/1.1.
/// - `limitedPort`: TLS with `http2`, every path answers like `/answer`, and nginx ends each connection
///   (GOAWAY) after `requestsPerLimitedConnection` requests.
///
/// Locations on the first three: `/answer` says "answer connection=<nginx connection serial>
/// protocol=<HTTP/x> method=<M>"; `/large` is a file of `largeBodySize` bytes; `/unavailable` answers 503.
package final class NginxFixture {
    package static let hostName = "doh.test"
    /// Larger than ProviderAnswerLimits.maximumBodySize (64 KiB).
    package static let largeBodySize = 80 * 1024
    /// Low, so that a burst of requests must queue for stream slots.
    package static let maxConcurrentStreams = 4
    /// Requests nginx serves on a `limitedPort` connection before it ends it.
    package static let requestsPerLimitedConnection = 3
    /// Port picking races with other processes now and then; retry a few times.
    private static let startAttempts = 3
    /// How long nginx may take to listen.
    private static let readyTimeoutSeconds = 5.0

    package let directory: URL
    package let certificatePath: String
    package private(set) var h2Port: UInt16 = 0
    package private(set) var tlsPort: UInt16 = 0
    package private(set) var plainPort: UInt16 = 0
    package private(set) var limitedPort: UInt16 = 0
    private var process: Process?

    package static var nginxPath: String? { executable("nginx", extraDirectories: ["/usr/sbin", "/sbin"]) }
    package static var opensslPath: String? { executable("openssl", extraDirectories: []) }
    package static var isAvailable: Bool { nginxPath != nil && opensslPath != nil }

    package init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ipdirect-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        certificatePath = directory.appendingPathComponent("cert.pem").path
        try makeCertificate()
        try Data(repeating: UInt8(ascii: "x"), count: NginxFixture.largeBodySize)
            .write(to: directory.appendingPathComponent("large.bin"))
        var lastError: Error?
        for _ in 0..<NginxFixture.startAttempts {
            let ports = try LoopbackPorts.free(count: 4)
            (h2Port, tlsPort, plainPort, limitedPort) = (ports[0], ports[1], ports[2], ports[3])
            do {
                try start()
                return
            } catch {
                stop()
                lastError = error
            }
        }
        throw lastError ?? FixtureError("nginx did not start")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    package func stop() {
        guard let process else { return }
        self.process = nil
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    package var accessLog: String {
        (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
    }

    private func makeCertificate() throws {
        let key = directory.appendingPathComponent("key.pem").path
        try NginxFixture.runTool(NginxFixture.opensslPath!, [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", certificatePath, "-days", "2", "-subj", "/CN=\(NginxFixture.hostName)",
            "-addext", "subjectAltName=DNS:\(NginxFixture.hostName)",
        ])
    }

    private func start() throws {
        let prefix = directory.path
        // As root the workers would run as nobody, who cannot read the private temporary directory.
        let userLine = geteuid() == 0 ? "user root;" : ""
        let config = """
        \(userLine)
        worker_processes 1;
        daemon off;
        pid \(prefix)/nginx.pid;
        error_log \(prefix)/error.log info;
        events { worker_connections 256; }
        http {
            access_log \(prefix)/access.log;
            client_body_temp_path \(prefix)/tmp/body;
            proxy_temp_path \(prefix)/tmp/proxy;
            fastcgi_temp_path \(prefix)/tmp/fastcgi;
            uwsgi_temp_path \(prefix)/tmp/uwsgi;
            scgi_temp_path \(prefix)/tmp/scgi;
            keepalive_requests 10000;
            http2_max_concurrent_streams \(NginxFixture.maxConcurrentStreams);
            server {
                listen 127.0.0.1:\(h2Port) ssl http2;
                listen 127.0.0.1:\(tlsPort) ssl;
                listen 127.0.0.1:\(plainPort);
                server_name \(NginxFixture.hostName);
                ssl_certificate \(certificatePath);
                ssl_certificate_key \(prefix)/key.pem;
                default_type application/dns-message;
                location = /answer {
                    return 200 "answer connection=$connection protocol=$server_protocol method=$request_method\\n";
                }
                location = /large { alias \(prefix)/large.bin; }
                location = /unavailable { return 503 "down\\n"; }
            }
            server {
                # nginx reads keepalive_requests for HTTP/2 at server level only.
                listen 127.0.0.1:\(limitedPort) ssl http2;
                server_name \(NginxFixture.hostName);
                ssl_certificate \(certificatePath);
                ssl_certificate_key \(prefix)/key.pem;
                keepalive_requests \(NginxFixture.requestsPerLimitedConnection);
                location / {
                    return 200 "answer connection=$connection protocol=$server_protocol method=$request_method\\n";
                }
            }
        }
        """
        let configPath = directory.appendingPathComponent("nginx.conf").path
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: NginxFixture.nginxPath!)
        process.arguments = ["-p", prefix, "-c", configPath, "-e", "\(prefix)/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(NginxFixture.readyTimeoutSeconds)
        while Date() < deadline {
            guard process.isRunning else { break }
            if [h2Port, tlsPort, plainPort, limitedPort].allSatisfy(LoopbackPorts.accepts) { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        let log = (try? String(contentsOfFile: "\(prefix)/error.log", encoding: .utf8)) ?? ""
        throw FixtureError("nginx is not listening: \(log.suffix(2000))")
    }

    private static func executable(_ name: String, extraDirectories: [String]) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":").map(String.init) + extraDirectories {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    package static func runTool(_ path: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError("\(path) \(arguments.joined(separator: " ")) failed: \(String(decoding: output, as: UTF8.self))")
        }
    }
}

package struct FixtureError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

import Testing
@testable import IPDirectCore

/// The schema on top of TOML: defaults, every key, and every kind of problem with its line.
@Suite struct ConfigTests {
    static func diagnostics(_ text: String) -> [ConfigDiagnostic] {
        switch Config.parse(text) {
        case .success: return []
        case .failure(let error): return error.diagnostics
        }
    }

    static func parsed(_ text: String) -> Config? {
        try? Config.parse(text).get()
    }

    @Test func defaultsAreTheDocumentedValues() {
        let config = Config.defaults
        #expect(config.proxy.listen == [SocketAddress("127.0.0.1:8080")!])
        #expect(config.proxy.workers == 0)
        #expect(config.proxy.maxConnections == 10_000)
        #expect(config.proxy.maxHeaderBytes == 32_768)
        #expect(config.proxy.headerTimeoutMs == 10_000)
        #expect(config.proxy.clientIdleTimeoutMs == 60_000)
        #expect(config.proxy.tunnelIdleTimeoutMs == 300_000)
        #expect(config.proxy.drainTimeoutMs == 30_000)
        #expect(config.proxy.connectTimeoutMs == 5_000)
        #expect(config.proxy.responseTimeoutMs == 60_000)
        #expect(config.proxy.upstreamIdleTimeoutMs == 30_000)
        #expect(config.proxy.upstreamMaxIdlePerHost == 32)
        #expect(config.proxy.accessLog == "-")
        #expect(config.proxy.logLevel == .info)
        #expect(config.proxy.viaName == "ipdirect")
        #expect(config.resolver.order == [.hosts, .httpdns, .system])
        #expect(config.resolver.systemNameservers == [])
        #expect(config.resolver.systemTimeoutMs == 5_000)
        #expect(config.hosts.isEmpty)
        #expect(config.access.connectPorts == [443])
        #expect(config.access.allowPrivateUpstreams == false)
        #expect(config.upstream.httpsUpgrade == [])
        #expect(config.tls.caFile == nil && config.tls.caPath == nil)
        #expect(config.tls.pins.isEmpty)
        #expect(config.tls.insecureHosts.isEmpty)
    }

    @Test(arguments: ["", "# nothing but a comment\n", "[proxy]\n[resolver]\n[hosts]\n[access]\n[upstream]\n[tls]\n"])
    func emptyConfigurationsGiveTheDefaults(text: String) {
        #expect(Self.parsed(text) == Config.defaults)
    }

    @Test func readsEveryKey() throws {
        let text = """
            [proxy]
            listen = ["127.0.0.1:3128", "[::1]:3128"]
            workers = 4
            max_connections = 500
            max_pipes = 100
            max_header_bytes = 65536
            header_timeout = 2.5
            client_idle_timeout = 30
            tunnel_idle_timeout = 600
            drain_timeout = 2.5
            connect_timeout = 0.75
            response_timeout = 120
            upstream_idle_timeout = 15
            upstream_max_idle_per_host = 0
            access_log = "/var/log/ipdirect/access.log"
            log_level = "debug"
            via = "edge-1"
            [resolver]
            order = ["system", "hosts"]
            system_nameservers = ["127.0.0.53", "[::1]:5353", "192.0.2.1:53"]
            system_timeout = 1.5
            [access]
            connect_ports = [443, 8443]
            allow_private_upstreams = true
            [upstream]
            https_upgrade = ["api.example.com", "*.example.net", "plain.example.org:8443"]
            [tls]
            ca_file = "ca.pem"
            ca_path = "certs"
            insecure_hosts = ["lab.example.com"]
            [[tls.pin]]
            host = "api.example.com"
            spki_sha256 = ["1jmGGO921lcMF/9Y49HgGOu5rElGk+kCR16QmmFevvA="]
            [hosts]
            "example.com" = "192.0.2.10"
            """
        let config = try #require(Self.parsed(text), "\(Self.diagnostics(text))")
        #expect(config.proxy.listen == [SocketAddress("127.0.0.1:3128")!, SocketAddress("[::1]:3128")!])
        #expect(config.proxy.workers == 4)
        #expect(config.proxy.maxConnections == 500)
        #expect(config.proxy.maxPipes == 100)
        #expect(config.proxy.maxHeaderBytes == 65_536)
        #expect(config.proxy.headerTimeoutMs == 2_500)
        #expect(config.proxy.clientIdleTimeoutMs == 30_000)
        #expect(config.proxy.tunnelIdleTimeoutMs == 600_000)
        #expect(config.proxy.drainTimeoutMs == 2_500)
        #expect(config.proxy.connectTimeoutMs == 750)
        #expect(config.proxy.responseTimeoutMs == 120_000)
        #expect(config.proxy.upstreamIdleTimeoutMs == 15_000)
        #expect(config.proxy.upstreamMaxIdlePerHost == 0)
        #expect(config.proxy.accessLog == "/var/log/ipdirect/access.log")
        #expect(config.proxy.logLevel == .debug)
        #expect(config.proxy.viaName == "edge-1")
        #expect(config.resolver.order == [.system, .hosts])
        #expect(config.resolver.systemNameservers
            == [SocketAddress("127.0.0.53:53")!, SocketAddress("[::1]:5353")!, SocketAddress("192.0.2.1:53")!])
        #expect(config.resolver.systemTimeoutMs == 1_500)
        #expect(config.access.connectPorts == [443, 8443])
        #expect(config.access.allowPrivateUpstreams == true)
        #expect(config.tls.caFile == "ca.pem")
        #expect(config.tls.caPath == "certs")
        #expect(config.tls.insecureHosts == ["lab.example.com"])
        #expect(config.tls.pins == ["api.example.com": ["1jmGGO921lcMF/9Y49HgGOu5rElGk+kCR16QmmFevvA="]])
        #expect(config.upstream.httpsUpgrade.map(\.description) == ["api.example.com", "*.example.net", "plain.example.org:8443"])
        #expect(config.hosts == ["example.com": [IPAddress("192.0.2.10")!]])
    }

    @Test(arguments: [
        ("[proxy]\nlistn = [\"127.0.0.1:8080\"]", 2, "unknown key 'listn' in [proxy]"),
        ("\n[proxi]\nlisten = []", 2, "unknown section [proxi]"),
        ("[[upstreams]]\nname = 1", 1, "unknown section [[upstreams]]"),
        ("[[upstream]]\nhttps_upgrade = []", 1, "'upstream' must be a section, written [upstream]"),
        ("[upstream]\nhttps_upgrades = []", 2, "unknown key 'https_upgrades' in [upstream]"),
        ("[tls]\ninsecure = true", 2, "unknown key 'insecure' in [tls]"),
        ("[proxy.extra]\nx = 1", 1, "unknown section [proxy.extra]"),
        ("[resolver]\ndoh.url = \"x\"", 2, "unknown section [resolver.doh]"),
        ("[resolver]\nhttpdns.url = \"x\"", 2, "httpdns: write each provider as a [[resolver.httpdns]] table, with double brackets"),
        ("workers = 4", 1, "unknown key 'workers' outside any section; keys belong in [proxy], [resolver], [hosts], [access], [upstream], [tls], [admin], [pac], [dns], [transparent]"),
        ("proxy = 1", 1, "'proxy' must be a section, written [proxy]"),
        ("[access]\n\"connect ports\" = [1]", 2, "unknown key '\\\"connect ports\\\"' in [access]"),
    ])
    func reportsUnknownSectionsAndKeysOnTheirLines(text: String, line: Int, message: String) {
        #expect(Self.diagnostics(text) == [ConfigDiagnostic(line: line, message: message)])
    }

    @Test(arguments: [
        ("[proxy]\nworkers = \"4\"", 2, "workers: expected an integer, found a string"),
        ("[proxy]\nworkers = 4.0", 2, "workers: expected an integer, found a float"),
        ("[proxy]\nlisten = 8080", 2, "listen: expected an address or an array of addresses, found an integer"),
        ("[proxy]\nlisten = [8080]", 2, "listen: expected a string, found an integer"),
        ("[proxy]\nheader_timeout = \"10s\"", 2, "header_timeout: expected a number of seconds, found a string"),
        ("[proxy]\nlog_level = 1", 2, "log_level: expected a string, found an integer"),
        ("[access]\nallow_private_upstreams = \"yes\"", 2, "allow_private_upstreams: expected true or false, found a string"),
        ("[access]\nconnect_ports = 443", 2, "connect_ports: expected an array, found an integer"),
        ("[tls]\nca_file = false", 2, "ca_file: expected a string, found a boolean"),
        ("[tls]\ninsecure_hosts = \"lab.example\"", 2, "insecure_hosts: expected an array, found a string"),
        ("[tls]\npin = \"api.example.com\"", 2, "pin: expected [[tls.pin]] tables, found a string"),
        ("[upstream]\nhttps_upgrade = \"api.example.com\"", 2, "https_upgrade: expected an array, found a string"),
        ("[upstream]\nhttps_upgrade = [443]", 2, "https_upgrade: expected a string, found an integer"),
        ("[hosts]\n\"a.example\" = 1", 2, "hosts: 'a.example': expected an IP address or an array of them, found an integer"),
    ])
    func reportsWrongTypes(text: String, line: Int, message: String) {
        #expect(Self.diagnostics(text) == [ConfigDiagnostic(line: line, message: message)])
    }

    @Test(arguments: [
        ("[access]\nconnect_ports = [443, 70000]", 2, "connect_ports: 70000 is not a port (1-65535)"),
        ("[access]\nconnect_ports = [0]", 2, "connect_ports: 0 is not a port (1-65535)"),
        ("[access]\nconnect_ports = [\n  443,\n  8443,\n  443,\n]", 5, "connect_ports: 443 is listed twice (first on line 3)"),
        ("[proxy]\nworkers = 65", 2, "workers: 65 is out of range (0-64)"),
        ("[proxy]\nworkers = -1", 2, "workers: -1 is out of range (0-64)"),
        ("[proxy]\nmax_connections = 0", 2, "max_connections: 0 is out of range (1-1000000)"),
        ("[proxy]\nmax_pipes = -1", 2, "max_pipes: -1 is out of range (0-1000000)"),
        ("[proxy]\nmax_header_bytes = 512", 2, "max_header_bytes: 512 is out of range (1024-1048576)"),
        ("[proxy]\nupstream_max_idle_per_host = 5000", 2, "upstream_max_idle_per_host: 5000 is out of range (0-4096)"),
        ("[proxy]\nheader_timeout = 0", 2, "header_timeout: 0 is not a positive number of seconds"),
        ("[proxy]\nconnect_timeout = -1.5", 2, "connect_timeout: -1.5 is not a positive number of seconds"),
        ("[proxy]\nclient_idle_timeout = inf", 2, "client_idle_timeout: inf is not a positive number of seconds"),
        ("[proxy]\ntunnel_idle_timeout = nan", 2, "tunnel_idle_timeout: nan is not a positive number of seconds"),
        ("[proxy]\ndrain_timeout = 0", 2, "drain_timeout: 0 is not a positive number of seconds"),
        ("[proxy]\ndrain_timeout = 3601", 2, "drain_timeout: 3601 seconds is more than the maximum of 3600"),
        ("[proxy]\nresponse_timeout = 100000", 2, "response_timeout: 100000 seconds is more than the maximum of 86400"),
        ("[proxy]\nupstream_idle_timeout = 0.0001", 2, "upstream_idle_timeout: 0.0001 seconds is less than one millisecond"),
        ("[resolver]\nsystem_timeout = 301", 2, "system_timeout: 301 seconds is more than the maximum of 300"),
        ("[proxy]\nlisten = []", 2, "listen: must list at least one value"),
        ("[proxy]\nlisten = [\"localhost:8080\"]", 2,
         "listen: 'localhost:8080' is not an address with a port, such as 127.0.0.1:8080 or [::1]:8080"),
        ("[proxy]\nlisten = [\"127.0.0.1\"]", 2,
         "listen: '127.0.0.1' is not an address with a port, such as 127.0.0.1:8080 or [::1]:8080"),
        ("[proxy]\nlisten = [\"127.0.0.1:8080\", \"127.0.0.1:8080\"]", 2, "listen: 127.0.0.1:8080 is listed twice (first on line 2)"),
        ("[proxy]\naccess_log = \"\"", 2, "access_log: must not be empty"),
        ("[proxy]\naccess_log = \"a\\nb\"", 2, "access_log: must not contain control characters"),
        ("[proxy]\nlog_level = \"verbose\"", 2, "log_level: 'verbose' is not one of debug, info, warning, error"),
        ("[proxy]\nvia = \"ip direct\"", 2, "via: 'ip direct' is not a token (letters, digits and !#$%&'*+-.^_`|~)"),
        ("[proxy]\nvia = \"\(String(repeating: "v", count: 65))\"", 2, "via: is longer than 64 characters"),
        ("[resolver]\norder = []", 2, "order: must list at least one value"),
        ("[resolver]\norder = [\"dns\"]", 2, "order: 'dns' is not one of hosts, httpdns, system"),
        ("[resolver]\norder = [\"system\", \"system\"]", 2, "order: system is listed twice (first on line 2)"),
        ("[resolver]\nsystem_nameservers = [\"ns1.example\"]", 2,
         "system_nameservers: 'ns1.example' is not an IP address with an optional port, such as 192.0.2.53 or [2001:db8::53]:5353"),
        ("[resolver]\nsystem_nameservers = [\"192.0.2.1\", \"192.0.2.1:53\"]", 2,
         "system_nameservers: 192.0.2.1:53 is listed twice (first on line 2)"),
        ("[tls]\nca_path = \"\"", 2, "ca_path: must not be empty"),
    ])
    func reportsOutOfRangeValues(text: String, line: Int, message: String) {
        #expect(Self.diagnostics(text) == [ConfigDiagnostic(line: line, message: message)])
    }

    @Test func reportsEveryProblemInLineOrder() {
        let text = """
            [proxy]
            listn = ["127.0.0.1:8080"]
            workers = 100
            workers = 2
            [resolver]
            order = ["hosts", "dns"]
            [acess]
            connect_ports = [443]
            [access]
            connect_ports = [
              443,
              70000,
            ]
            [tls]
            ca_file = 1
            """
        let diagnostics = Self.diagnostics(text)
        #expect(diagnostics == [
            ConfigDiagnostic(line: 2, message: "unknown key 'listn' in [proxy]"),
            ConfigDiagnostic(line: 3, message: "workers: 100 is out of range (0-64)"),
            ConfigDiagnostic(line: 4, message: "duplicate key 'workers' (first set on line 3)"),
            ConfigDiagnostic(line: 6, message: "order: 'dns' is not one of hosts, httpdns, system"),
            ConfigDiagnostic(line: 7, message: "unknown section [acess]"),
            ConfigDiagnostic(line: 12, message: "connect_ports: 70000 is not a port (1-65535)"),
            ConfigDiagnostic(line: 15, message: "ca_file: expected a string, found an integer"),
        ])
    }

    @Test func checksWhatCameBeforeASyntaxError() {
        let text = "[proxy]\nlistn = []\nworkers = [1 2]\nbogus = 1\n"
        #expect(Self.diagnostics(text).map(\.line) == [2, 3])
    }

    @Test func reportsDuplicateSections() {
        let text = "[proxy]\nworkers = 1\n\n[proxy]\nworkers = 2\n"
        #expect(Self.diagnostics(text) == [ConfigDiagnostic(line: 4, message: "table [proxy] is defined twice (first on line 1)")])
    }

    @Test func refusesDateValuesWithAClearMessage() {
        let diagnostics = Self.diagnostics("[proxy]\nvia = 2024-01-01\n")
        #expect(diagnostics.map(\.line) == [2])
        #expect(diagnostics.first?.message.contains("date/time values") == true)
    }

    @Test func formatsDiagnosticsForEditors() {
        let error = ConfigError(diagnostics: [
            ConfigDiagnostic(line: 3, message: "unknown key 'listn' in [proxy]"),
            ConfigDiagnostic(line: 0, message: "cannot open: No such file or directory"),
        ])
        #expect(error.diagnostics[0].description == "3: unknown key 'listn' in [proxy]")
        #expect(error.formatted(file: "ipdirect.toml")
            == "ipdirect.toml:3: unknown key 'listn' in [proxy]\nipdirect.toml: cannot open: No such file or directory")
        #expect(error.description == "3: unknown key 'listn' in [proxy]\n0: cannot open: No such file or directory")
    }

    @Test func ordersLogLevelsBySeverity() {
        #expect(LogLevel.debug < .info && LogLevel.info < .warning && LogLevel.warning < .error)
        #expect(LogLevel.allCases.sorted() == [.debug, .info, .warning, .error])
    }

    @Test func roundsTimeoutsToTheNearestMillisecond() {
        #expect(Self.parsed("[proxy]\nconnect_timeout = 0.0015")?.proxy.connectTimeoutMs == 2)
        #expect(Self.parsed("[proxy]\nconnect_timeout = 0.0014")?.proxy.connectTimeoutMs == 1)
        #expect(Self.parsed("[proxy]\nconnect_timeout = 300")?.proxy.connectTimeoutMs == 300_000)
    }

    @Test func allowsPortZeroForListenersSoTheKernelPicks() {
        #expect(Self.parsed("[proxy]\nlisten = [\"127.0.0.1:0\"]")?.proxy.listen == [SocketAddress(ip: .v4(0x7F00_0001), port: 0)])
    }
}

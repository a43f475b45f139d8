/// The `[transparent]` section: TCP connections that nftables redirects to ipdirect (`redirect to :PORT`)
/// from programs that ignore proxy settings. Each is taken to the name its first bytes ask for (a TLS
/// ClientHello's server name, an HTTP request's Host), resolved through HTTPDNS and connected with the
/// ranking, without decrypting anything. Off unless `listen` names an address. ipdirect never installs the
/// rules itself: `ipdirect nft-rules` prints them for a root unit to load.
public struct TransparentSettings: Sendable, Equatable {
    /// Where redirected connections arrive; empty turns transparent mode off. The rules redirect local
    /// traffic to loopback and forwarded traffic to the address of the interface it came in on, so
    /// `0.0.0.0:PORT` (and `[::]:PORT`) takes both; every address has the same port.
    public var listen: [SocketAddress] = []
    /// Original destination ports served (and redirected by the rules); a connection to any other is closed.
    public var ports: [UInt16] = [80, 443]
    /// How long a connection's first bytes, and the rest of a ClientHello begun, are waited for. A client of
    /// a protocol whose server speaks first sends nothing: it goes on to `unsniffed` after this.
    public var sniffTimeoutMs = 1_000
    /// Where a sniffed connection goes.
    public var mode = TransparentMode.override
    /// Where a connection whose first bytes name nothing goes, when the DNS listener has answered no name
    /// for its original address recently.
    public var unsniffed = TransparentUnsniffed.original
    /// The user the rules exempt from the local redirect: ipdirect's own connections must not come back to
    /// it. A static user (the package's sysusers.d entry); a systemd DynamicUser has no stable uid.
    public var exemptUser = "ipdirect"
    /// Interfaces whose incoming connections (other machines, containers, namespaces routed through this
    /// one) are redirected too; empty redirects local programs only.
    public var interfaces: [String] = []
    /// Destinations never redirected: loopback, private, link-local, multicast and reserved blocks by
    /// default, which no public name should lead to.
    public var direct: [IPPrefix] = TransparentSettings.nonPublicBlocks
    /// The rules also send DNS queries (UDP and TCP port 53) to the `[dns]` listener's port.
    public var redirectDNS = false
    /// The rules refuse UDP to port 443, so browsers fall back from QUIC (not covered) to TCP.
    public var rejectQUIC = false

    public init() {}

    /// Whether transparent mode is on.
    public var isEnabled: Bool { !listen.isEmpty }

    /// The blocks `IPAddress.isNonPublic` names.
    public static let nonPublicBlocks: [IPPrefix] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4",
        "::/127", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8", "64:ff9b:1::/48",
    ].map { IPPrefix($0)! }

    /// The longest `sniff_timeout`.
    static let maximumSniffTimeoutSeconds = 60
}

/// `[transparent] mode`.
public enum TransparentMode: String, Sendable, Equatable, CaseIterable {
    /// To the sniffed name's addresses through HTTPDNS, ranked and raced, never the original address (which
    /// is what a hijacked or stale answer gave the client).
    case override
    /// To the original address, as if ipdirect were not there; the log says what it would have chosen and
    /// whether the original address is in the HTTPDNS answer. For a first look before turning it on.
    case observe
}

/// `[transparent] unsniffed`.
public enum TransparentUnsniffed: String, Sendable, Equatable, CaseIterable {
    /// To the original address and port.
    case original
    /// Closed.
    case reset
}

extension TransparentSettings {
    static let sectionName = "transparent"

    static var configKeys: [ConfigKey<TransparentSettings>] {
        [
            ConfigKey("listen", \.listen, .addresses(allowEmpty: true)),
            ConfigKey("ports", \.ports, .list(of: .port, allowEmpty: false)),
            ConfigKey("sniff_timeout", \.sniffTimeoutMs, .milliseconds(fromSecondsUpTo: maximumSniffTimeoutSeconds)),
            ConfigKey("mode", \.mode, .choice),
            ConfigKey("unsniffed", \.unsniffed, .choice),
            ConfigKey("exempt_user", \.exemptUser, .string.then(validUserName)),
            ConfigKey("interfaces", \.interfaces, .list(of: .string.then(validInterfaceName), allowEmpty: true)),
            ConfigKey("direct", \.direct, .list(of: .ipPrefix, allowEmpty: true)),
            ConfigKey("redirect_dns", \.redirectDNS, .boolean),
            ConfigKey("reject_quic", \.rejectQUIC, .boolean),
        ]
    }

    static var section: ConfigSection {
        .keyed(sectionName, \.transparent, keys: configKeys)
    }

    /// A user name as useradd(8) takes it, or a numeric uid: it is written into the rules as it is.
    static func validUserName(_ name: String) -> Result<String, ConfigRejection> {
        let bytes = Array(name.utf8)
        let allowed = bytes.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard !bytes.isEmpty, bytes.count <= 32, allowed, bytes.first != UInt8(ascii: "-") else {
            return .failure("\(LogQuote.singleQuoted(name)) is not a user name (lower-case letters, digits, _ and -) or a uid")
        }
        return .success(name)
    }

    /// An interface name as the kernel takes it (IFNAMSIZ: 15 bytes) without the bytes nft would need quoted.
    static func validInterfaceName(_ name: String) -> Result<String, ConfigRejection> {
        let bytes = Array(name.utf8)
        let allowed = bytes.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
        guard !bytes.isEmpty, bytes.count <= 15, allowed else {
            return .failure("\(LogQuote.singleQuoted(name)) is not an interface name (up to 15 letters, digits, '.', '_' and '-')")
        }
        return .success(name)
    }

    /// Settings that only make sense together, once every section is read.
    static func problems(_ config: Config, listenLine: Int) -> [ConfigDiagnostic] {
        let settings = config.transparent
        var problems: [ConfigDiagnostic] = []
        if Set(settings.listen.map(\.port)).count > 1 {
            problems.append(ConfigDiagnostic(line: listenLine, message: "listen: every address needs the same port; the rules redirect to one port"))
        }
        let loopbackReached = settings.listen.contains { $0.ip.isUnspecified || $0.ip.isLoopbackAddress }
        if !settings.listen.isEmpty && !loopbackReached {
            problems.append(ConfigDiagnostic(line: listenLine, message: "listen: the local redirect reaches 127.0.0.1 or ::1; listen there or on 0.0.0.0 / [::]"))
        }
        if !settings.interfaces.isEmpty && !settings.listen.contains(where: { $0.ip.isUnspecified }) {
            problems.append(ConfigDiagnostic(line: listenLine, message: "listen: connections redirected from interfaces arrive at the interface's own address; listen on 0.0.0.0 (and [::])"))
        }
        if settings.listen.contains(where: { $0.port == 0 }) {
            problems.append(ConfigDiagnostic(line: listenLine, message: "listen: port 0 picks a port at start; the rules redirect to a port written here"))
        }
        if settings.redirectDNS && config.dns.listen.isEmpty {
            problems.append(ConfigDiagnostic(line: listenLine, message: "redirect_dns: [dns] listen is empty; there is no DNS listener to redirect to"))
        } else if settings.redirectDNS {
            let local = NFTRuleset.ports(of: config.dns.listen, arrival: .loopback)
            if local.v4 == nil && local.v6 == nil {
                problems.append(ConfigDiagnostic(line: listenLine, message: "redirect_dns: the local redirect reaches 127.0.0.1 or ::1; [dns] listen has neither, nor 0.0.0.0 / [::]"))
            } else if local.v4 == 0 || local.v6 == 0 {
                problems.append(ConfigDiagnostic(line: listenLine, message: "redirect_dns: [dns] listen has port 0; the rules redirect to a port written there"))
            }
            let forwarded = NFTRuleset.ports(of: config.dns.listen, arrival: .interface)
            if !settings.interfaces.isEmpty && forwarded.v4 == nil && forwarded.v6 == nil {
                problems.append(ConfigDiagnostic(line: listenLine, message: "redirect_dns: queries redirected from interfaces arrive at the interface's own address; [dns] listen on 0.0.0.0 (and [::])"))
            }
        }
        let clash = settings.listen.filter { address in
            address.port != 0 && config.proxy.listen.contains { $0.port == address.port }
        }
        for address in clash {
            problems.append(ConfigDiagnostic(line: listenLine, message: "listen: \(address) has the port of [proxy] listen; redirected connections need a port of their own"))
        }
        return problems
    }
}

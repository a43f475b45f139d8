/// What a service manager such as systemd hands a daemon through its environment: where to send state
/// notifications (sd_notify(3)), how often to ping the watchdog (sd_watchdog_enabled(3)) and which
/// listening sockets it opened on the daemon's behalf (sd_listen_fds(3), socket activation).
public struct ServiceEnvironment: Sendable, Equatable {
    /// One inherited descriptor and the name the socket unit gave it (`FileDescriptorName=`).
    public struct HandedSocket: Sendable, Equatable {
        public var fd: Int32
        public var name: String?
    }

    /// `NOTIFY_SOCKET`: a socket path, or an abstract name written with a leading `@`.
    public var notifySocket: String?
    /// Half of `WATCHDOG_USEC` in milliseconds: systemd's own advice for how often to ping
    /// (sd_watchdog_enabled(3)). Nil when no watchdog is set, or it is meant for another process.
    public var watchdogPingIntervalMs: Int?
    /// Sockets passed by socket activation; empty when none were passed to this process.
    public var handedSockets: [HandedSocket] = []

    /// Socket activation passes descriptors from 3 upwards (SD_LISTEN_FDS_START).
    public static let firstHandedDescriptor: Int32 = 3
    /// More sockets than this is a broken `LISTEN_FDS`, not a real socket unit.
    static let maximumHandedSockets = 1024
    /// The variables socket activation sets; unset once read so no child process takes them as its own.
    public static let listenVariables = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]

    public init() {}

    /// Reads the variables through `variable`, for the process `ownPID`.
    public static func read(ownPID: Int32, _ variable: (String) -> String?) -> Result<ServiceEnvironment, ServiceEnvironmentError> {
        var environment = ServiceEnvironment()
        if let socket = variable("NOTIFY_SOCKET"), !socket.isEmpty {
            environment.notifySocket = socket
        }
        switch watchdogInterval(ownPID: ownPID, variable) {
        case .success(let interval): environment.watchdogPingIntervalMs = interval
        case .failure(let error): return .failure(error)
        }
        switch handedSockets(ownPID: ownPID, variable) {
        case .success(let sockets): environment.handedSockets = sockets
        case .failure(let error): return .failure(error)
        }
        return .success(environment)
    }

    private static func watchdogInterval(ownPID: Int32, _ variable: (String) -> String?) -> Result<Int?, ServiceEnvironmentError> {
        guard let text = variable("WATCHDOG_USEC") else { return .success(nil) }
        if let pid = variable("WATCHDOG_PID"), Int32(pid) != ownPID { return .success(nil) }
        guard let micros = Int(text), micros > 0 else { return .failure(.badWatchdogInterval(text)) }
        // Never below a millisecond: a ping per loop turn is no use to anyone.
        return .success(max(1, micros / 2 / 1000))
    }

    private static func handedSockets(ownPID: Int32, _ variable: (String) -> String?) -> Result<[HandedSocket], ServiceEnvironmentError> {
        guard let countText = variable("LISTEN_FDS") else { return .success([]) }
        // LISTEN_PID guards against variables inherited from a parent that was itself socket-activated.
        guard let pidText = variable("LISTEN_PID"), Int32(pidText) == ownPID else { return .success([]) }
        guard let count = Int(countText), (0...maximumHandedSockets).contains(count) else {
            return .failure(.badDescriptorCount(countText))
        }
        var names: [String?] = Array(repeating: nil, count: count)
        if let namesText = variable("LISTEN_FDNAMES"), !namesText.isEmpty {
            let given = namesText.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard given.count == count else { return .failure(.namesDoNotMatch(names: given.count, descriptors: count)) }
            names = given.map { $0.isEmpty ? nil : $0 }
        }
        return .success(names.enumerated().map { index, name in
            HandedSocket(fd: firstHandedDescriptor + Int32(index), name: name)
        })
    }
}

/// A service-manager variable that cannot be used as given.
public enum ServiceEnvironmentError: Error, Equatable, CustomStringConvertible {
    case badWatchdogInterval(String)
    case badDescriptorCount(String)
    case namesDoNotMatch(names: Int, descriptors: Int)

    public var description: String {
        switch self {
        case .badWatchdogInterval(let text): return "WATCHDOG_USEC=\(LogQuote.singleQuoted(text)) is not a positive number of microseconds"
        case .badDescriptorCount(let text): return "LISTEN_FDS=\(LogQuote.singleQuoted(text)) is not a number of descriptors"
        case .namesDoNotMatch(let names, let descriptors):
            return "LISTEN_FDNAMES has \(names) names for \(descriptors) descriptors"
        }
    }
}

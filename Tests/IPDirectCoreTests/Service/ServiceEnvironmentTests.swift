import Testing
@testable import IPDirectCore

@Suite struct ServiceEnvironmentTests {
    static let ownPID: Int32 = 4242

    static func read(_ variables: [String: String]) -> Result<ServiceEnvironment, ServiceEnvironmentError> {
        ServiceEnvironment.read(ownPID: ownPID) { variables[$0] }
    }

    @Test func noVariablesMeansRunByHand() throws {
        #expect(try Self.read([:]).get() == ServiceEnvironment())
    }

    @Test(arguments: ["/run/systemd/notify", "@/org/freedesktop/systemd1/notify"])
    func notifySocketIsTakenAsGiven(socket: String) throws {
        #expect(try Self.read(["NOTIFY_SOCKET": socket]).get().notifySocket == socket)
    }

    @Test func watchdogIsPingedAtHalfItsInterval() throws {
        #expect(try Self.read(["WATCHDOG_USEC": "30000000"]).get().watchdogPingIntervalMs == 15_000)
        #expect(try Self.read(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "4242"]).get().watchdogPingIntervalMs == 15_000)
    }

    @Test func watchdogMeantForAnotherProcessIsIgnored() throws {
        #expect(try Self.read(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"]).get().watchdogPingIntervalMs == nil)
    }

    @Test(arguments: ["0", "-5", "soon"])
    func unusableWatchdogIntervalIsAnError(text: String) {
        #expect(throws: ServiceEnvironmentError.badWatchdogInterval(text)) { try Self.read(["WATCHDOG_USEC": text]).get() }
    }

    @Test func handedSocketsStartAtDescriptorThreeWithTheirNames() throws {
        let environment = try Self.read(["LISTEN_PID": "4242", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "proxy:"]).get()
        #expect(environment.handedSockets == [.init(fd: 3, name: "proxy"), .init(fd: 4, name: nil)])
    }

    @Test func handedSocketsWithoutNames() throws {
        let environment = try Self.read(["LISTEN_PID": "4242", "LISTEN_FDS": "1"]).get()
        #expect(environment.handedSockets == [.init(fd: 3, name: nil)])
    }

    @Test(arguments: [nil, "1", "4243"])
    func handedSocketsForAnotherProcessAreNotOurs(pid: String?) throws {
        var variables = ["LISTEN_FDS": "1"]
        variables["LISTEN_PID"] = pid
        #expect(try Self.read(variables).get().handedSockets.isEmpty)
    }

    @Test func brokenDescriptorVariablesAreErrors() {
        #expect(throws: ServiceEnvironmentError.badDescriptorCount("two")) {
            try Self.read(["LISTEN_PID": "4242", "LISTEN_FDS": "two"]).get()
        }
        #expect(throws: ServiceEnvironmentError.namesDoNotMatch(names: 1, descriptors: 2)) {
            try Self.read(["LISTEN_PID": "4242", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "proxy"]).get()
        }
    }

    @Test func statesAreWrittenInTheNotifyProtocol() {
        #expect(ServiceState.ready(status: "serving on 127.0.0.1:8080").message == "READY=1\nSTATUS=serving on 127.0.0.1:8080")
        #expect(ServiceState.reloading(monotonicMicros: 1_234_567).message == "RELOADING=1\nMONOTONIC_USEC=1234567")
        #expect(ServiceState.stopping(status: "draining").message == "STOPPING=1\nSTATUS=draining")
        #expect(ServiceState.watchdog.message == "WATCHDOG=1")
        #expect(ServiceState.status("two\nlines").message == "STATUS=two lines")
    }
}

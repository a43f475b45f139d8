import Testing
@testable import IPDirectCore

/// A machine whose connection ended, reopened for the next, starts as a new machine does, keeping only the
/// room it grew: no action, head byte, login or request of the connection before, and no head storage grown
/// huge.
@Suite struct SessionMachineReuseTests {
    /// A machine that has served an exchange for a logged-in user, its actions performed.
    static func servedMachine(requestFields: String = "") -> SessionMachine {
        var script = SessionScript(requiresAuthentication: true)
        _ = script.run([.start, .head(Heads.get(fields: Heads.aliceCredentials + requestFields)),
                        .credentialsChecked("alice", refusal: nil), .resolved(["203.0.113.7"]), .pooled,
                        .requestPumped(.complete, moved: 0), .responseHead(Heads.ok()),
                        .responsePumped(.complete, moved: 5)])
        return script.machine
    }

    /// Each stored property of `value` by name, as text, but for those named in `skipped`.
    static func properties(of value: Any, skipping skipped: Set<String> = []) -> [String: String] {
        var properties: [String: String] = [:]
        for child in Mirror(reflecting: value).children {
            guard let label = child.label, !skipped.contains(label) else { continue }
            properties[label] = String(describing: child.value)
        }
        return properties
    }

    /// The machine `opening` makes, and the ended machine reopened with it.
    static func freshAndReopened(_ opening: (SessionRules) -> SessionOpening,
                                 requestFields: String = "") -> (fresh: SessionMachine, reopened: SessionMachine) {
        var reopened = Self.servedMachine(requestFields: requestFields)
        let made = opening(reopened.rules)
        reopened.reopen(made)
        return (SessionMachine(made), reopened)
    }

    /// `reopened` reads as `fresh` does in every property but the room it kept.
    static func expectSame(_ reopened: SessionMachine, as fresh: SessionMachine) {
        #expect(Self.properties(of: reopened, skipping: ["actions", "payloads"])
                == Self.properties(of: fresh, skipping: ["actions", "payloads"]))
        #expect(Self.properties(of: reopened.payloads, skipping: ["requestHead", "responseHead"])
                == Self.properties(of: fresh.payloads, skipping: ["requestHead", "responseHead"]))
        #expect(reopened.actions.isEmpty)
        #expect(reopened.payloads.requestHead.isEmpty && reopened.payloads.responseHead.isEmpty)
    }

    @Test func anEndedMachineReopenedForANewConnectionStartsAsANewOne() {
        let grownActionCapacity = Self.servedMachine().actions.capacity
        let (fresh, reopened) = Self.freshAndReopened {
            .accepted(rules: $0, clientPermitted: false, requiresAuthentication: true, draining: true)
        }
        Self.expectSame(reopened, as: fresh)
        #expect(!reopened.clientPermitted && reopened.requiresAuthentication && reopened.draining)
        #expect(reopened.actions.capacity == grownActionCapacity, "the action slots are kept")
        #expect(reopened.payloads.requestHead.capacity > 0 && reopened.payloads.responseHead.capacity > 0,
                "the head storage is kept")
    }

    @Test func anEndedMachineReopenedForAWokenParkedConnectionIsTheParkedMachineAgain() {
        var script = SessionScript(requiresAuthentication: true)
        _ = script.run(SessionMachineParkingTests.parked)
        guard let parked = script.machine.parked else { Issue.record("the script's machine did not park"); return }
        let (fresh, reopened) = Self.freshAndReopened { .woken(rules: $0, parked: parked) }
        Self.expectSame(reopened, as: fresh)
        #expect(reopened.state.isParked && reopened.parked != nil)
    }

    @Test func aReopenedMachineAsksForCredentialsAgain() {
        var script = SessionScript(requiresAuthentication: true)
        script.machine = Self.servedMachine()
        script.machine.reopen(.accepted(rules: script.machine.rules, clientPermitted: true, requiresAuthentication: true,
                                        draining: false))
        let actions = script.all([.start, .head(Heads.get())])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 407 "))
        #expect(script.machine.request.user == nil)
    }

    @Test func headStorageGrownPastTheLimitIsNotKept() {
        let large = "X-Large: " + String(repeating: "a", count: SessionMachine.maxReusedHeadBytes) + "\r\n"
        #expect(Self.servedMachine(requestFields: large).payloads.requestHead.capacity > SessionMachine.maxReusedHeadBytes)
        let (_, reopened) = Self.freshAndReopened({
            .accepted(rules: $0, clientPermitted: true, requiresAuthentication: false, draining: false)
        }, requestFields: large)
        #expect(reopened.payloads.requestHead.capacity == 0)
        #expect(reopened.payloads.responseHead.capacity > 0)
    }
}

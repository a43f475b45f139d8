import CEvent
import IPDirectCore

/// SOCKS messages and credential checks for the machine.
extension ClientSession {
    /// Hands the buffered SOCKS bytes to the machine; false when it took none (it waits for more).
    func readSOCKSInput() -> Bool {
        let length = ipd_evbuffer_length(clientInput)
        let peek = min(length, SessionMachine.maxSOCKSMessageBytes)
        guard peek > 0, let start = evbuffer_pullup(clientInput, peek) else {
            perform(machine.socksReceived(UnsafeRawBufferPointer(start: nil, count: 0), levels, now: clock.nowMicros))
            return false
        }
        perform(machine.socksReceived(UnsafeRawBufferPointer(start: start, count: peek), levels,
                                      now: clock.nowMicros))
        // A message that closed the connection freed its buffers: nothing is left to read.
        return !isClosed && ipd_evbuffer_length(clientInput) < length
    }

    /// Checks a user's password against `[access] auth_file` (on the verifier's thread, or at once
    /// from its cache) and reports the answer to the machine.
    func verifyCredentials(user: String, password: String) {
        guard let verifier = configuration.credentials, let client = peerAddress?.ip else {
            return perform(machine.credentialsChecked(user: user, refusal: "no credentials can be checked",
                                                      levels, now: clock.nowMicros))
        }
        let lookup = verifier.verify(user: user, password: password, client: client) { [unowned self] check in
            credentialCheck = nil
            report(check, for: user)
        }
        switch lookup {
        case .done(let check): report(check, for: user)
        case .pending(let handle): credentialCheck = handle
        }
    }

    private func report(_ check: CredentialCheck, for user: String) {
        let refusal: String?
        switch check {
        case .accepted: refusal = nil
        case .refused(let reason): refusal = reason
        }
        perform(machine.credentialsChecked(user: user, refusal: refusal, levels, now: clock.nowMicros))
    }
}

import IPDirectCore

/// A session's lookup waiting on the resolver thread. Lives on the session's loop: the answer arrives
/// through that loop's mailbox, so `deliver` and `cancel` never race.
final class PendingLookup: ResolveHandle {
    private var completion: ((Result<Resolution, ResolveFailure>) -> Void)?
    private(set) var isFinished = false

    init(completion: @escaping (Result<Resolution, ResolveFailure>) -> Void) {
        self.completion = completion
    }

    func cancel() {
        completion = nil
    }

    func deliver(_ result: Result<Resolution, ResolveFailure>) {
        isFinished = true
        guard let completion else { return }
        self.completion = nil
        completion(result)
    }
}

/// Where the resolver thread sends the answer for one waiting lookup.
struct ResolveWaiter {
    let mailbox: LoopMailbox
    let lookup: PendingLookup

    func answer(_ result: Result<Resolution, ResolveFailure>) {
        let lookup = self.lookup
        mailbox.post { lookup.deliver(result) }
    }
}

import IPDirectCore

/// A session's lookup waiting on the resolver thread.
typealias PendingLookup = PendingAnswer<Result<Resolution, ResolveFailure>>

extension PendingAnswer: ResolveHandle {}

/// Where the resolver thread sends the answer for one waiting lookup.
struct ResolveWaiter {
    let mailbox: LoopMailbox
    let lookup: PendingLookup

    func answer(_ result: Result<Resolution, ResolveFailure>) {
        let lookup = self.lookup
        mailbox.post { lookup.deliver(result) }
    }
}

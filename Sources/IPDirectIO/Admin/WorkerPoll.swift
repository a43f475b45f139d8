import IPDirectCore

/// An admin answer still being put together; the connection that waits for it cancels it when it closes.
protocol PendingAdminAnswer: AnyObject {
    func cancel()
    /// True once the answer was given (possibly before the caller got hold of this) or cancelled.
    var isFinished: Bool { get }
}

/// One question put to every worker's loop, each answering on its own thread, the answers gathered on the admin
/// loop: the admin thread never reads a worker's sessions, and a worker spends nothing on the question
/// until it is asked.
final class WorkerPoll<Answer: Sendable>: PendingAdminAnswer {
    private var answers: [Answer?]
    private var remaining: Int
    /// Given the answers in the workers' order, or nil when one did not answer in time.
    private var completion: (([Answer]?) -> Void)?
    private let deadline: Timer
    /// True once the completion has run or the poll was cancelled.
    var isFinished: Bool { completion == nil }

    /// Asks each of `workers` with `ask` on its loop; `completion` runs on the admin loop (`adminMailbox`'s,
    /// whose base is `adminBase`) with the answers in the workers' order once all have answered (at once when
    /// there are none), or with nil after `timeoutMillis` if one has not: a stuck or stopping worker leaves
    /// the request answered, not waiting for ever.
    init(workers: [Worker], adminMailbox: LoopMailbox, adminBase: EventBase, timeoutMillis: Int,
         ask: @escaping (Worker) -> Answer, completion: @escaping ([Answer]?) -> Void) {
        answers = Array(repeating: nil, count: workers.count)
        remaining = workers.count
        self.completion = completion
        deadline = Timer(base: adminBase)
        if workers.isEmpty {
            finish()
            return
        }
        deadline.action = { [unowned self] in expire() }
        deadline.schedule(afterMillis: timeoutMillis)
        for (position, worker) in workers.enumerated() {
            worker.mailbox.post { [self] in
                let answer = ask(worker)
                adminMailbox.post { [self] in received(answer, at: position) }
            }
        }
    }

    /// The completion will not run.
    func cancel() {
        completion = nil
        deadline.cancel()
    }

    private func expire() {
        guard let completion else { return }
        self.completion = nil
        completion(nil)
    }

    private func received(_ answer: Answer, at position: Int) {
        answers[position] = answer
        remaining -= 1
        if remaining == 0 { finish() }
    }

    private func finish() {
        deadline.cancel()
        guard let completion else { return }
        self.completion = nil
        completion(answers.compactMap { $0 })
    }
}

/// An answer a session waits for from another thread (a name lookup, a password check). Lives on the
/// session's loop: the answer arrives through that loop's mailbox, so `deliver` and `cancel` never race.
/// Once cancelled, the completion is never called.
final class PendingAnswer<Answer> {
    private var completion: ((Answer) -> Void)?
    /// True once the answer has arrived, whether or not anyone was still waiting for it.
    private(set) var isFinished = false

    init(completion: @escaping (Answer) -> Void) {
        self.completion = completion
    }

    /// The session closed: drop the completion, and what it captured, now.
    func cancel() {
        completion = nil
    }

    func deliver(_ answer: Answer) {
        isFinished = true
        guard let completion else { return }
        self.completion = nil
        completion(answer)
    }
}

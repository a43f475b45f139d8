import Synchronization

/// The watchdog ping is earned, not timed: every interval each worker loop is asked to answer through
/// its mailbox, and WATCHDOG=1 is sent only if all of them answered the previous round. A loop stuck in
/// a callback therefore stops the pings, and systemd restarts the daemon (`WatchdogSec`).
struct WorkerHeartbeat {
    private final class Answers: Sendable {
        let count = Mutex(0)
    }

    private let mailboxes: [LoopMailbox]
    private let answers = Answers()
    private let intervalMicros: Int64
    private var nextDueMicros: Int64
    private var roundOutstanding = false

    init(mailboxes: [LoopMailbox], intervalMillis: Int) {
        self.mailboxes = mailboxes
        intervalMicros = Int64(intervalMillis) * 1000
        nextDueMicros = MonotonicClock.nowMicros()
    }

    /// How long the main thread may wait before the next ping is due.
    var millisUntilDue: Int {
        Int(max(0, nextDueMicros - MonotonicClock.nowMicros()) / 1000)
    }

    /// Pings when due and every worker answered the last round; then starts the next round.
    mutating func tickIfDue(_ notifier: ServiceNotifier?) {
        let now = MonotonicClock.nowMicros()
        guard now >= nextDueMicros else { return }
        nextDueMicros = now + intervalMicros
        let answered = answers.count.withLock { count in
            defer { count = 0 }
            return count
        }
        if !roundOutstanding || answered == mailboxes.count {
            notifier?.send(.watchdog)
        } else {
            Logger.warning("event=watchdog_withheld answered=\(answered) workers=\(mailboxes.count)")
        }
        let answers = self.answers
        for mailbox in mailboxes {
            mailbox.post { answers.count.withLock { $0 += 1 } }
        }
        roundOutstanding = true
    }
}

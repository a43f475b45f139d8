import CEvent
import Glibc
import IPDirectCore

/// How a session hands a kept-alive connection over to `ParkedClients` and takes one back.
extension ClientSession {
    /// Gives up the (empty) buffers, kept for another connection, but not the socket, whose descriptor is returned for the parked
    /// connection; the session performs nothing more.
    func detachClient() -> Int32 {
        isClosed = true
        stopWakeup()
        return worker.spareSockets.keep(&client)
    }

    /// Takes over a parked connection whose socket became readable: what is there is read at once (no
    /// extra loop turn), and the machine hears of it.
    func resume() {
        attachClient()
        let fd = client.fd
        // A socket bufferevent keeps its input frozen against writers other than its own read callback.
        evbuffer_unfreeze(clientInput, 0)
        let received = evbuffer_read(clientInput, fd, -1)
        let readError = errno
        evbuffer_freeze(clientInput, 0)
        if received > 0 { client.inputGrew() }
        if received == 0 || (received < 0 && readError != EAGAIN && readError != EWOULDBLOCK) {
            return didReceive(from: .client, events: Int16(BEV_EVENT_READING) | Int16(received == 0 ? BEV_EVENT_EOF : BEV_EVENT_ERROR))
        }
        perform(machine.clientReadable(now: clock.nowMicros))
    }
}

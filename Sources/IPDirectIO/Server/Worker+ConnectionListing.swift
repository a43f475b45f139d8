import IPDirectCore

/// What the admin listener asks a worker about its client connections, run on the worker's loop when it asks
/// and only then: nothing is kept up to date for a page nobody has open.
extension Worker {
    /// The newest `limit` sessions as rows, and counts of every connection this loop holds. Sessions are
    /// ordered by their start and id alone; rows are built only for those returned.
    func connectionListing(limit: Int) -> ConnectionListing {
        var listing = ConnectionListing()
        listing.total = sessions.count
        listing.idle = parkedClients.count
        listing.silent = silentClients.count
        var order = ListingOrder()
        order.reserveCapacity(sessions.count)
        sessions.forEach { session in
            listing.byMode[session.machine.listingMode.index] += 1
            order.append(start: session.machine.listingStartMicros, id: session.id)
        }
        // Positions are slots of the set: nothing joins or leaves it while this runs on the worker's loop.
        listing.rows = order.newestFirst(limit: limit).map { position in
            let session = sessions.member(at: position)
            return session.machine.listing(id: session.id, client: session.peerAddress)
        }
        return listing
    }

    /// Closes the session `id` names; false when this loop holds none by that id (it ended, or it is parked or
    /// silent, and those hold no upstream to close).
    func closeConnection(id: UInt64) -> Bool {
        var found: ClientSession?
        sessions.forEach { session in
            if session.id == id { found = session }
        }
        guard let found else { return false }
        Logger.info("worker=\(index) client=\(found.peer) event=connection_closed_by_operator id=\(id)")
        found.closeByOperator()
        return true
    }

    /// The worker whose session numbers carry `id` (`nextSessionID`).
    static func index(ofSession id: UInt64) -> Int { Int(id >> 48) }
}

import Foundation
import Queue
import SQLiteStorage
import Timestamps
import Wire

/// Who is picking at the station: a worker signs in by scanning a badge (`workerBadgePattern`) or
/// by choosing a name on the page (`workers`), and every tap and scan then carries that `workerId`.
/// Kept in the station database, so a restart keeps it and `scanpick tap` in a shell sees it. With
/// `requireSignIn`, the page's taps and the scans wait for someone to sign in; without it they carry
/// the config's `worker` until someone does.
///
///     let worker = try station.workers.signIn(id: "w-0042", name: "Ana")
public struct StationWorkers: Sendable {
    let station: PickStation

    /// The worker signed in now.
    public struct SignedIn: Sendable, Equatable, Encodable {
        public var id: String
        public var name: String?
        public var since: String
    }

    /// Signs `id` in (the previous worker, if any, is signed out). The id keeps the API's rule for a
    /// `workerId`; a name given must be 1–64 characters of text.
    @discardableResult
    public func signIn(id: String, name: String?) throws -> SignedIn {
        try FieldRules.text(id, field: "workerId")
        if let name { try FieldRules.text(name, field: "name", maxLength: 64) }
        let worker = SignedIn(id: id, name: name, since: Timestamp.iso8601())
        try station.queue.transaction { db in
            _ = try db.run(
                "INSERT OR REPLACE INTO station_worker (slot, worker_id, name, signed_in_at) VALUES (1, ?, ?, ?)",
                [worker.id, worker.name, worker.since])
        }
        return worker
    }

    /// Signs the worker out (nothing happens when nobody is signed in).
    public func signOut() throws {
        try station.queue.transaction { db in _ = try db.run("DELETE FROM station_worker", []) }
    }

    /// The worker signed in, or nil.
    public func current() throws -> SignedIn? {
        try station.queue.database.read { db in try Self.current(db) }
    }

    static func current(_ db: Database) throws -> SignedIn? {
        try db.row("SELECT worker_id, name, signed_in_at FROM station_worker").map {
            SignedIn(
                id: try $0.string("worker_id"), name: try $0.optionalString("name"),
                since: try $0.string("signed_in_at"))
        }
    }

    /// The `workerId` an action made now carries, read in the caller's transaction (so a sign-out at
    /// the same moment is either before or after it): the worker signed in, else the config's
    /// `worker`, unless `requireSignIn` (then nil: someone must sign in first).
    static func actingWorker(_ db: Database, _ configuration: StationConfiguration, requireSignIn: Bool) throws
        -> String?
    {
        if let worker = try current(db) { return worker.id }
        return requireSignIn ? nil : configuration.worker
    }

    /// The configured name for a worker id, if the config lists it.
    func name(of id: String) -> String? {
        station.configuration.workers.first { $0.id == id }?.name
    }
}

extension PickStation {
    /// Who is picking at the station (sign-in and sign-out).
    public var workers: StationWorkers { StationWorkers(station: self) }
}

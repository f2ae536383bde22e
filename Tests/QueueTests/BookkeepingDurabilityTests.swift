import Foundation
import TestSupport
import Testing

@testable import Queue

/// The drainer's bookkeeping commits without fsync (`synchronous=NORMAL`); the connection must be
/// back at FULL for the enqueues that follow, whether the bookkeeping succeeded or failed.
@Suite struct BookkeepingDurabilityTests {
    @Test func enqueuesAfterBookkeepingAreFullySynchronousAgain() throws {
        let folder = try TemporaryDirectory()
        let queue = try ActionQueue(path: folder.file("q.sqlite"))
        func synchronous() throws -> Int? {
            try queue.database.write { db in try db.row("PRAGMA synchronous")?.int("synchronous") }
        }
        let id = try queue.enqueue(NewAction.pick(org: "acme", pickTaskId: "t1", location: nil, qty: 1, worker: "w"))
        #expect(try synchronous() == 2)
        try queue.record(id, state: .sent, status: 200, error: nil, nextAttemptAt: nil, now: Date())
        #expect(try synchronous() == 2)
        // A bookkeeping write that fails inside (its table is gone) leaves FULL behind too.
        _ = try queue.database.write { db in try db.run("ALTER TABLE actions RENAME TO gone") }
        #expect(throws: (any Error).self) {
            try queue.record(id, state: .sent, status: 200, error: nil, nextAttemptAt: nil, now: Date())
        }
        #expect(try synchronous() == 2)
    }
}

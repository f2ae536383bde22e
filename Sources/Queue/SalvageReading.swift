import Foundation
import SQLiteStorage
import Storage

/// What a salvage learns of a damaged queue, path by path (``ActionQueue/salvage(path:)``): the
/// rows it read and where from, what the indexes say exists, and whether any index read whole.
struct SalvageReading {
    /// Rows that read whole, by id.
    private var rows: [Int: QueuedAction] = [:]
    /// Ids whose row came through SQLite's own reads (preferred: the live b-tree).
    private var throughSQLite: Set<Int> = []
    /// Ids whose row was found but did not read whole.
    private var broken: Set<Int> = []
    /// What the `idempotency_key` and state indexes hold, by id.
    private var keys: [Int: String] = [:]
    private var states: [Int: String] = [:]
    /// The ids of each index that read whole, from its root to every leaf.
    private var wholeIndexes: [Set<Int>] = []
    /// The highest id the queue handed out (`sqlite_sequence`), when it reads.
    private var handedOut: Int?
    /// Whether the table itself was reached by some path (so an empty result means an empty queue).
    private(set) var anyPathRead = false

    /// Ids looked up one by one past damage in SQLite's walk, at most: the page-by-page read finds
    /// the rest, and a damaged root page would otherwise cost a lookup for every id there could be.
    static let sqliteStepLimit = 100_000
    /// Ids SQLite's walk looks up one by one past a damaged page before it tries to walk on.
    static let sqliteStep = 256

    /// The whole table through SQLite; when a damaged page breaks that, its ids walked in order
    /// (stepping over damage, within ``sqliteStepLimit``), and every id another path found looked up.
    mutating func readThroughSQLite(_ db: Database) {
        if let whole = try? db.rows("SELECT * FROM actions ORDER BY id") {
            anyPathRead = true
            for row in whole { take(row, throughSQLite: true) }
        } else {
            var after = 0
            var steppedOver = 0
            while true {
                let next: Int?
                do {
                    next = try db.row("SELECT id FROM actions WHERE id > ? ORDER BY id LIMIT 1", [after])?.int("id")
                } catch {
                    guard after <= Int.max - Self.sqliteStep, steppedOver < Self.sqliteStepLimit else { break }
                    for id in (after + 1)...(after + Self.sqliteStep) { lookUp(id, db) }
                    after += Self.sqliteStep
                    steppedOver += Self.sqliteStep
                    continue
                }
                guard let next, next > after else { break }
                lookUp(next, db)
                after = next
            }
            for id in Set(keys.keys).union(states.keys).union(rows.keys).union(broken).sorted()
            where !throughSQLite.contains(id) {
                lookUp(id, db)
            }
        }
        if let seq = try? db.row("SELECT seq FROM sqlite_sequence WHERE name = 'actions'")?.int("seq") {
            handedOut = max(handedOut ?? 0, seq)
        }
    }

    private mutating func lookUp(_ id: Int, _ db: Database) {
        do {
            if let row = try db.row("SELECT * FROM actions WHERE id = ?", [id]) { take(row, throughSQLite: true) }
        } catch {
            broken.insert(id)
        }
    }

    /// The schema's b-trees from their roots (the table, its indexes, `sqlite_sequence`), then every
    /// other table leaf and index page not on the freelist: rows and index entries a damaged page
    /// cut off from their root. `columns` are the table's, in order.
    mutating func readPageByPage(_ file: RawDatabaseFile, columns: [String]) {
        var reached: Set<Int> = []
        var tableRoot: Int?
        var indexRoots: [Int] = []
        var sequenceRoot: Int?
        let schema = file.walk(root: 1)
        reached.formUnion(schema.pages)
        var otherRoots: [Int] = []
        for cell in schema.cells {
            guard let values = cell.values, values.count == 5, case .text(let type) = values[0],
                case .text(let name) = values[1], case .text(let table) = values[2],
                case .integer(let root) = values[3], root >= 1, root <= file.pageCount
            else { continue }
            switch (type, name, table) {
            case ("table", "actions", _): tableRoot = Int(root)
            case ("index", _, "actions"): indexRoots.append(Int(root))
            case ("table", "sqlite_sequence", _): sequenceRoot = Int(root)
            default: otherRoots.append(Int(root))
            }
        }
        if let tableRoot {
            let tree = file.walk(root: tableRoot)
            reached.formUnion(tree.pages)
            anyPathRead = anyPathRead || tree.complete
            for cell in tree.cells { take(cell, columns: columns) }
        }
        for root in indexRoots {
            let tree = file.walk(root: root)
            reached.formUnion(tree.pages)
            var ids: Set<Int> = []
            for cell in tree.cells { if let id = note(indexEntry: cell.values, orphan: false) { ids.insert(id) } }
            if tree.complete { wholeIndexes.append(ids) }
        }
        if let sequenceRoot {
            let tree = file.walk(root: sequenceRoot)
            reached.formUnion(tree.pages)
            for cell in tree.cells { noteSequence(cell.values) }
        }
        for root in otherRoots { reached.formUnion(file.walk(root: root).pages) }
        // Pages no root reaches: cut off by damage (or every page, when the schema itself is damaged).
        for number in 1...max(1, file.pageCount) where !reached.contains(number) && !file.freePages.contains(number) {
            switch file.kind(ofPage: number) {
            case .tableLeaf:
                for cell in file.cells(onPage: number).cells {
                    take(cell, columns: columns)
                    noteSequence(cell.values)
                }
            case .indexLeaf, .indexInterior:
                for cell in file.cells(onPage: number).cells { _ = note(indexEntry: cell.values, orphan: true) }
            default: break
            }
        }
    }

    /// A table cell that may be a row of `actions` (its record has the table's shape).
    private mutating func take(_ cell: RawDatabaseFile.Cell, columns: [String]) {
        guard let rowid = cell.rowid, var values = cell.values, values.count <= columns.count,
            values.count >= columns.count - 2, rowid >= 1, rowid <= Int64(Int.max)
        else { return }
        values += Array(repeating: .null, count: columns.count - values.count)  // columns added later
        if let id = columns.firstIndex(of: "id") { values[id] = .integer(rowid) }
        take(Row(columns: columns, values: values), throughSQLite: false)
    }

    /// A row of `actions` from any path: kept when it reads whole (an unsent one as an import
    /// would check it), else its id is noted as broken.
    private mutating func take(_ row: Row, throughSQLite sqlite: Bool) {
        guard let action = try? QueuedAction(row: row) else {
            // A record of another table has another shape; one of this table names its id.
            if sqlite, let id = try? row.int("id") { broken.insert(id) }
            return
        }
        // A row read off a page by hand must also read as an import checks it (damage can leave a
        // record that decodes); SQLite's own reads are taken as they are, as before any damage.
        let unsent: Set<ActionState> = [.pending, .inFlight, .dead]
        if !sqlite, unsent.contains(action.state), ActionQueue.problem(with: SalvagedAction(action)) != nil {
            broken.insert(action.id)
            return
        }
        guard sqlite || rows[action.id] == nil else { return }  // SQLite's read, then the first found
        rows[action.id] = action
        if sqlite { throughSQLite.insert(action.id) }
        anyPathRead = true
    }

    /// An entry of one of the table's indexes: `(idempotency_key, rowid)` or `(state, id, rowid)`.
    /// Off their b-trees (`orphan`), only the state index's shape is specific enough to trust.
    private mutating func note(indexEntry values: [DatabaseValue]?, orphan: Bool) -> Int? {
        guard let values else { return nil }
        if values.count == 2, !orphan, case .text(let key) = values[0], case .integer(let id) = values[1],
            id >= 1, id <= Int64(Int.max)
        {
            keys[Int(id)] = key
            return Int(id)
        }
        if values.count == 3, case .text(let state) = values[0], case .integer(let id) = values[1],
            case .integer(let rowid) = values[2], id == rowid, id >= 1, id <= Int64(Int.max),
            ActionState(rawValue: state) != nil
        {
            states[Int(id)] = state
            return Int(id)
        }
        return nil
    }

    /// A row of `sqlite_sequence`: `("actions", seq)`.
    private mutating func noteSequence(_ values: [DatabaseValue]?) {
        guard let values, values.count == 2, values[0] == .text("actions"), case .integer(let seq) = values[1],
            seq >= 0, seq <= Int64(Int.max)
        else { return }
        handedOut = max(handedOut ?? 0, Int(seq))
    }

    /// Every unsent action read, what is known to exist but did not read, and, when no index read
    /// whole, the ids nothing accounts for.
    func salvage() -> Salvage {
        let unsent: Set<ActionState> = [.pending, .inFlight, .dead]
        let actions = rows.values.filter { unsent.contains($0.state) }.sorted { $0.id < $1.id }.map(
            SalvagedAction.init)
        // A damaged cell can decode with any rowid: an id past every one the file otherwise knows
        // (the sequence, a row, an index entry) is noise, not a missing action.
        let listed = Set(rows.keys).union(keys.keys).union(states.keys)
        let highest = max(handedOut ?? 0, listed.max() ?? 0)
        let known = listed.union(broken.filter { $0 <= highest })
        let unreadable = known.subtracting(rows.keys).filter { states[$0] != "sent" }.sorted().map {
            Salvage.Unreadable(id: $0, idempotencyKey: keys[$0], state: states[$0])
        }
        // A whole index lists every row there is (and must list every row read, or it is not whole).
        let indexed = wholeIndexes.contains { $0.isSuperset(of: rows.keys) }
        var unaccounted: [ClosedRange<Int>] = []
        if !indexed {
            var previous = 0
            for id in known.sorted() + [max(handedOut ?? 0, known.max() ?? 0) + 1]
            where id > previous && unaccounted.count < Self.maxRanges {
                if id > previous + 1 { unaccounted.append(previous + 1...id - 1) }
                previous = id
            }
        }
        return Salvage(actions: actions, unreadable: unreadable, unaccounted: unaccounted)
    }

    /// Ranges of unaccounted ids listed at most.
    static let maxRanges = 10_000
}

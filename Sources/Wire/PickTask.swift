import GS1
import JSONText

/// One line of a batch to pick, as the ScanPick API sends it: what to pick, where, how many, how
/// many are picked, and how many of those are locked in an active shipment (a label exists).
public struct PickTask: Codable, Sendable, Equatable {
    public var id: String
    public var batchId: String
    public var orderId: String
    public var lineId: String
    public var sku: String
    public var location: String
    /// The barcode expected when this item is scanned.
    public var barcode: String
    public var qtyRequired: Int
    public var qtyPicked: Int
    /// Units in active shipments: `qtyPicked` can never go below this.
    public var qtyLocked: Int
    /// The order line's lot, earliest accepted expiry (`YYYY-MM-DD`), case GTIN-14 and units per
    /// case, when it has them (see ``OrderLine``).
    public var lot: String?
    public var bestBefore: String?
    public var caseGtin: String?
    public var caseQty: Int?

    public init(
        id: String, batchId: String, orderId: String, lineId: String, sku: String, location: String, barcode: String,
        qtyRequired: Int, qtyPicked: Int, qtyLocked: Int, lot: String? = nil, bestBefore: String? = nil,
        caseGtin: String? = nil, caseQty: Int? = nil
    ) {
        self.lot = lot
        self.bestBefore = bestBefore
        self.caseGtin = caseGtin
        self.caseQty = caseQty
        self.id = id
        self.batchId = batchId
        self.orderId = orderId
        self.lineId = lineId
        self.sku = sku
        self.location = location
        self.barcode = barcode
        self.qtyRequired = qtyRequired
        self.qtyPicked = qtyPicked
        self.qtyLocked = qtyLocked
    }

    /// Whether every required unit is picked.
    public var isComplete: Bool { qtyPicked >= qtyRequired }
}

/// A batch and its pick tasks in pick (location) order: `GET /api/batches/{id}`, `POST /api/batches`.
/// `status` is `open` or `closed` (every task complete, or a supervisor closed it: its unpicked
/// units went back to the pool); nil from a server that does not say.
public struct Batch: Codable, Sendable, Equatable {
    public var id: String
    public var tasks: [PickTask]
    public var status: String?
    public var closedAt: String?

    public init(id: String, tasks: [PickTask], status: String? = nil, closedAt: String? = nil) {
        self.id = id
        self.tasks = tasks
        self.status = status
        self.closedAt = closedAt
    }

    /// Whether the server has closed the batch (no more picks count on it).
    public var isClosed: Bool { status == "closed" }
}

/// One batch as `GET /api/batches` lists it: no tasks, their counts.
public struct BatchSummary: Codable, Sendable, Equatable {
    public var id: String
    public var status: String
    public var createdAt: String
    public var closedAt: String?
    /// How many tasks it has, and how many of them are complete.
    public var tasks: Int
    public var complete: Int

    public init(id: String, status: String, createdAt: String, closedAt: String?, tasks: Int, complete: Int) {
        self.id = id
        self.status = status
        self.createdAt = createdAt
        self.closedAt = closedAt
        self.tasks = tasks
        self.complete = complete
    }
}

/// `GET /api/batches`: the organisation's open batches, oldest first (at most ``limit``).
public struct BatchList: Codable, Sendable, Equatable {
    public var batches: [BatchSummary]

    /// The most batches one answer lists.
    public static let limit = 200

    public init(batches: [BatchSummary]) { self.batches = batches }
}

/// The answer to a pick, quantity change or scan: the task as it now stands.
public struct PickTaskResponse: Codable, Sendable, Equatable, JSONBytesEncodable {
    public var pickTask: PickTask

    public init(pickTask: PickTask) { self.pickTask = pickTask }

    /// The bytes Foundation's `JSONEncoder` writes with sorted keys, written directly: the server
    /// encodes this answer on its committing thread for every scan and pick, where the generic
    /// encoder cost a fifth of that thread's time.
    public var jsonBytes: [UInt8] {
        var task = JSONObjectWriter()  // keys in sorted order
        task.add("barcode", string: pickTask.barcode)
        task.add("batchId", string: pickTask.batchId)
        task.add("bestBefore", string: pickTask.bestBefore)
        task.add("caseGtin", string: pickTask.caseGtin)
        task.add("caseQty", number: pickTask.caseQty)
        task.add("id", string: pickTask.id)
        task.add("lineId", string: pickTask.lineId)
        task.add("location", string: pickTask.location)
        task.add("lot", string: pickTask.lot)
        task.add("orderId", string: pickTask.orderId)
        task.add("qtyLocked", number: pickTask.qtyLocked)
        task.add("qtyPicked", number: pickTask.qtyPicked)
        task.add("qtyRequired", number: pickTask.qtyRequired)
        task.add("sku", string: pickTask.sku)
        var response = JSONObjectWriter()
        response.add("pickTask", raw: task.finishedBytes())
        return response.finishedBytes()
    }
}

extension PickTask {
    /// What the task's order line expects of a scan, for ``ScanRule`` (the station's check and the
    /// server's are the same rule). `bestBefore` was checked to be a date when the order came in.
    public var scanRuleLine: ScanRule.Line {
        ScanRule.Line(
            barcode: barcode, lot: lot, bestBefore: bestBefore.flatMap { GS1Date(iso: $0) }, caseGTIN: caseGtin,
            caseQty: caseQty)
    }
}

import GS1
import JSONText

/// One line of a batch to pick, as the ScanPick API sends it: what to pick, where, into which tote,
/// how many, how many are picked, how many will not be (short), and how many of the picked are
/// locked in an active shipment (a label exists).
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
    /// The product's name, when the order line has one (pickers are shown the SKU otherwise).
    public var name: String?
    /// The tote the task's order goes into: its orders are numbered 1, 2, … in the order the batch
    /// first lists them (nil from a server that does not say).
    public var tote: Int?
    /// Units reported short (``ShortReason``): they will not be picked. A task is done when
    /// `qtyPicked + qtyShort` reaches `qtyRequired`; 0 from a server that does not say.
    public var qtyShort: Int

    public init(
        id: String, batchId: String, orderId: String, lineId: String, sku: String, location: String, barcode: String,
        qtyRequired: Int, qtyPicked: Int, qtyLocked: Int, lot: String? = nil, bestBefore: String? = nil,
        caseGtin: String? = nil, caseQty: Int? = nil, name: String? = nil, tote: Int? = nil, qtyShort: Int = 0
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
        self.name = name
        self.tote = tote
        self.qtyShort = qtyShort
    }

    private enum CodingKeys: String, CodingKey {
        case id, batchId, orderId, lineId, sku, location, barcode, qtyRequired, qtyPicked, qtyLocked, lot, bestBefore
        case caseGtin, caseQty, name, tote, qtyShort
    }

    /// Decodes a task; `qtyShort` may be absent (a server from before short picks), and is 0 then.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        batchId = try container.decode(String.self, forKey: .batchId)
        orderId = try container.decode(String.self, forKey: .orderId)
        lineId = try container.decode(String.self, forKey: .lineId)
        sku = try container.decode(String.self, forKey: .sku)
        location = try container.decode(String.self, forKey: .location)
        barcode = try container.decode(String.self, forKey: .barcode)
        qtyRequired = try container.decode(Int.self, forKey: .qtyRequired)
        qtyPicked = try container.decode(Int.self, forKey: .qtyPicked)
        qtyLocked = try container.decode(Int.self, forKey: .qtyLocked)
        lot = try container.decodeIfPresent(String.self, forKey: .lot)
        bestBefore = try container.decodeIfPresent(String.self, forKey: .bestBefore)
        caseGtin = try container.decodeIfPresent(String.self, forKey: .caseGtin)
        caseQty = try container.decodeIfPresent(Int.self, forKey: .caseQty)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        tote = try container.decodeIfPresent(Int.self, forKey: .tote)
        qtyShort = try container.decodeIfPresent(Int.self, forKey: .qtyShort) ?? 0
    }

    /// Whether the task is done: every required unit is picked or reported short (no count from
    /// outside can overflow the comparison).
    public var isComplete: Bool { qtyOpen == 0 }

    /// The units still to pick or report short: 0 once done (also when counts from outside are
    /// beyond any sum).
    public var qtyOpen: Int {
        // Past Int's range a difference is either far below 0 (done) or far above (not done).
        let (left, overflow) = qtyRequired.subtractingReportingOverflow(qtyPicked)
        if overflow { return qtyPicked < 0 ? Int.max : 0 }
        let (open, overflowAgain) = left.subtractingReportingOverflow(qtyShort)
        if overflowAgain { return qtyShort < 0 ? Int.max : 0 }
        return max(0, open)
    }

    /// What a picker reads for the product: its name, or its SKU when the line has none.
    public var displayName: String { name ?? sku }

    /// The task after a set-qty to `count` (already checked against what is boxed and required):
    /// the count the picker set wins, so shorts that no longer fit beside it shrink (the picker
    /// found units reported missing). The server and the station apply this same rule.
    public func settingPicked(to count: Int) -> PickTask {
        var updated = self
        updated.qtyPicked = count
        let (room, overflow) = qtyRequired.subtractingReportingOverflow(count)
        updated.qtyShort = overflow ? 0 : max(0, min(qtyShort, room))
        return updated
    }
}

/// Why units of a task will not be picked (`POST /api/picking/short`'s `reason`).
public enum ShortReason: String, Codable, Sendable, CaseIterable {
    /// Nothing (or not enough) at the location.
    case notFound = "not_found"
    /// There, but damaged.
    case damaged
    /// Any other reason.
    case other
}

/// Units of one task reported short for one reason, as `GET /api/batches/{id}` lists them.
public struct Shortage: Codable, Sendable, Equatable {
    public var pickTaskId: String
    public var qty: Int
    /// A ``ShortReason`` raw value.
    public var reason: String

    public init(pickTaskId: String, qty: Int, reason: String) {
        self.pickTaskId = pickTaskId
        self.qty = qty
        self.reason = reason
    }
}

/// A batch and its pick tasks in pick (location) order: `GET /api/batches/{id}`, `POST /api/batches`.
/// `status` is `open`, `complete` (every task done: picked or short; it still takes corrections)
/// or `closed` (a picker finished it, a supervisor closed it, or the server did
/// `batches.autoCloseMinutes` after its last change: its unpicked units went back to the pool);
/// nil from a server that does not say. `shortages` lists the units reported short, by task and
/// reason (nil from a server that does not say).
public struct Batch: Codable, Sendable, Equatable {
    public var id: String
    public var tasks: [PickTask]
    public var status: String?
    public var closedAt: String?
    public var shortages: [Shortage]?

    public init(
        id: String, tasks: [PickTask], status: String? = nil, closedAt: String? = nil, shortages: [Shortage]? = nil
    ) {
        self.id = id
        self.tasks = tasks
        self.status = status
        self.closedAt = closedAt
        self.shortages = shortages
    }

    /// Whether the server has closed the batch (no more picks count on it).
    public var isClosed: Bool { status == "closed" }
}

/// One batch as `GET /api/batches` lists it: no tasks, their counts (`status` `open` or `complete`).
public struct BatchSummary: Codable, Sendable, Equatable {
    public var id: String
    public var status: String
    public var createdAt: String
    public var closedAt: String?
    /// How many tasks it has, and how many of them are done (picked or short).
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

/// `GET /api/batches`: the organisation's batches not closed (open or complete), oldest first (at
/// most ``limit``).
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
        task.add("name", string: pickTask.name)
        task.add("orderId", string: pickTask.orderId)
        task.add("qtyLocked", number: pickTask.qtyLocked)
        task.add("qtyPicked", number: pickTask.qtyPicked)
        task.add("qtyRequired", number: pickTask.qtyRequired)
        task.add("qtyShort", number: pickTask.qtyShort)
        task.add("sku", string: pickTask.sku)
        task.add("tote", number: pickTask.tote)
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

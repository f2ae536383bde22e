import Foundation
import Testing

@testable import Wire

/// The hand-written answers are the bytes Foundation's encoder would write: a station or a replay
/// cannot tell them apart.
@Suite struct JSONBytesEncodableTests {
    static func foundationBytes(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try encoder.encode(value))
    }

    /// Every control character, quotes, backslashes, slashes, non-ASCII and astral text.
    static let awkwardText: String = {
        var text = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }.joined()
        text += "\u{7F}/\"\\é\u{2028}😀 plain"
        return text
    }()

    @Test(arguments: [
        PickTask(
            id: "t1", batchId: "b1", orderId: "o1", lineId: "l1", sku: "S", location: "A1", barcode: "5901234123457",
            qtyRequired: 3, qtyPicked: 1, qtyLocked: 0),
        PickTask(
            id: awkwardText, batchId: "b/2", orderId: "o\"2", lineId: "", sku: awkwardText, location: "\u{8}\u{C}",
            barcode: "x", qtyRequired: Int.max, qtyPicked: Int.min, qtyLocked: -1, lot: awkwardText,
            bestBefore: "2027-01-31", caseGtin: "15901234123454", caseQty: 12),
        PickTask(
            id: "t3", batchId: "b3", orderId: "o3", lineId: "l3", sku: "S", location: "A", barcode: "b",
            qtyRequired: 0, qtyPicked: 0, qtyLocked: 0, lot: nil, bestBefore: nil, caseGtin: nil, caseQty: 0),
        PickTask(
            id: "t4", batchId: "b4", orderId: "o4", lineId: "l4", sku: "S", location: "A", barcode: "b",
            qtyRequired: 5, qtyPicked: 1, qtyLocked: 0, name: awkwardText, tote: 7, qtyShort: 3),
    ])
    func aPickTaskAnswerIsFoundationsBytes(task: PickTask) throws {
        // Every stored property is written when it has a value: a field added to PickTask but not
        // to its hand-written JSON fails here.
        var full = task
        full.lot = full.lot ?? "L1"
        full.bestBefore = full.bestBefore ?? "2027-01-01"
        full.caseGtin = full.caseGtin ?? "15901234123454"
        full.caseQty = full.caseQty ?? 6
        full.name = full.name ?? "COFFEE"
        full.tote = full.tote ?? 2
        let object = try JSONSerialization.jsonObject(with: Data(PickTaskResponse(pickTask: full).jsonBytes))
        let written = try #require((object as? [String: Any])?["pickTask"] as? [String: Any])
        #expect(written.count == Mirror(reflecting: full).children.count)
        let response = PickTaskResponse(pickTask: task)
        #expect(response.jsonBytes == (try Self.foundationBytes(response)))
        #expect(try JSONDecoder().decode(PickTaskResponse.self, from: Data(response.jsonBytes)) == response)
    }
}

extension JSONBytesEncodableTests {
    @Test(arguments: [nil, "key-1", awkwardText])
    func pickingRequestsAreFoundationsBytes(key: String?) throws {
        let text = Self.awkwardText
        let scan = SubmitScanRequest(
            pickTaskId: text, barcode: "5901234123457", scannedAt: "2026-12-01T10:00:00.000Z", idempotencyKey: key,
            workerId: text)
        #expect(scan.jsonBytes == (try Self.foundationBytes(scan)))
        for qty in [0, -1, Int.max, Int.min] {
            let pick = PickRequest(pickTaskId: "t/1", qty: qty, idempotencyKey: key, workerId: text, at: text)
            #expect(pick.jsonBytes == (try Self.foundationBytes(pick)))
            let set = SetQtyRequest(pickTaskId: text, from: qty, to: ~qty, idempotencyKey: key, workerId: "w", at: "")
            #expect(set.jsonBytes == (try Self.foundationBytes(set)))
            let short = ShortPickRequest(
                pickTaskId: text, qty: qty, reason: text, idempotencyKey: key, workerId: "w", at: "2026-12-01")
            #expect(short.jsonBytes == (try Self.foundationBytes(short)))
        }
    }
}

extension JSONBytesEncodableTests {
    /// An order feed, encoded by hand before the write transaction, is Foundation's bytes too,
    /// with every optional field present or absent.
    @Test func anOrderFeedIsFoundationsBytes() throws {
        let text = Self.awkwardText
        let lines = [
            OrderLine(id: "l1", sku: text, location: "A/1", barcode: "5901234123457", qty: 3),
            OrderLine(
                id: text, sku: "S", location: "", barcode: "x", qty: Int.max, lot: text, bestBefore: "2027-01-31",
                caseGtin: "15901234123454", caseQty: Int.min, name: text),
        ]
        let orders = [
            Order(id: "o1", carrier: text, zone: "Z", shipBy: "2026-12-01", lines: lines),
            Order(id: text, carrier: "", zone: "\u{0}", shipBy: "", lines: []),
        ]
        #expect(orders.jsonBytes == (try Self.foundationBytes(orders)))
        #expect([Order]().jsonBytes == (try Self.foundationBytes([Order]())))
        #expect(try JSONDecoder().decode([Order].self, from: Data(orders.jsonBytes)) == orders)
        // Every stored property of a line is written when it has a value.
        let object = try JSONSerialization.jsonObject(with: Data(lines[1].jsonBytes))
        #expect((object as? [String: Any])?.count == Mirror(reflecting: lines[1]).children.count)
    }
}

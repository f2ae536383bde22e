import Testing

@testable import Wire

/// The contract's field bounds, shared by the server and the station.
@Suite struct FieldRulesTests {
    @Test func textRefusesEmptyTooLongAndControlCharacters() throws {
        try FieldRules.text("task-1 Ünïcödé ok", field: "f")
        #expect(throws: FieldError.self) { try FieldRules.text("", field: "f") }
        #expect(throws: FieldError.self) { try FieldRules.text(String(repeating: "a", count: 201), field: "f") }
        try FieldRules.text(String(repeating: "é", count: 200), field: "f")
        for refused in ["a\u{0}b", "a\u{1F}", "\u{7F}", "a\u{85}", "a\u{2028}b", "\u{202E}gnp.exe", "x\u{2066}"] {
            #expect(throws: FieldError(field: "f", problem: "must not contain control characters")) {
                try FieldRules.text(refused, field: "f")
            }
        }
    }

    @Test func aBarcodeKeepsTheGS1GroupSeparatorButNoOtherControlCharacter() throws {
        let gs1 = "0109501101530003\u{1D}10ABC123\u{1D}17261231"
        try FieldRules.barcode(gs1, field: "barcode")
        #expect(throws: FieldError.self) { try FieldRules.text(gs1, field: "barcode") }
        for refused in ["01\u{1D}\n", "a\u{0}b", "\u{1E}", "\u{202E}1"] {
            #expect(
                throws: FieldError(
                    field: "barcode",
                    problem: "must not contain control characters (other than the GS1 group separator)")
            ) { try FieldRules.barcode(refused, field: "barcode") }
        }
        try FieldRules.barcode(String(repeating: "9", count: FieldRules.maxBarcodeLength), field: "barcode")
        #expect(throws: FieldError.self) {
            try FieldRules.barcode(String(repeating: "9", count: FieldRules.maxBarcodeLength + 1), field: "barcode")
        }
    }

    @Test func quantitiesAndListsHaveTheirOwnKinds() {
        #expect(throws: FieldError(field: "qty", problem: "must be from 1 to 100000, not 0", kind: .quantity)) {
            try FieldRules.quantity(0, field: "qty", in: FieldRules.pickQuantity)
        }
        #expect(throws: FieldError.self) { try FieldRules.quantity(Int.max, field: "qty", in: FieldRules.unitCount) }
        #expect(throws: FieldError(field: "ids", problem: "may hold at most 2 items, not 3", kind: .listLength)) {
            try FieldRules.count(3, field: "ids", atMost: 2)
        }
    }

    /// Batches compare ship-by dates as text: only ISO 8601 orders correctly that way.
    @Test func shipDatesAreRealISODatesWithAnOptionalTime() throws {
        for good in ["2026-12-01", "2024-02-29", "2026-12-01T18:00:00Z", "2026-12-01T18:00"] {
            try FieldRules.shipDate(good, field: "shipBy")
        }
        for bad in ["2026-13-45", "2025-02-29", "not-a-date", "01/12/2026", "2026-12-1", "2026-12-01 18:00", ""] {
            #expect(throws: FieldError.self, "\(bad)") { try FieldRules.shipDate(bad, field: "shipBy") }
        }
        let filters = CreateBatchRequest(filters: BatchFilters(shipByOnOrBefore: "tomorrow"))
        #expect(throws: FieldError.self) { try filters.validate() }
    }

    @Test func anOrderFeedRefusesRepeatedIds() {
        let line = OrderLine(id: "l1", sku: "S", location: "A1", barcode: "4006381333931", qty: 1)
        let order = Order(id: "o1", carrier: "DHL", zone: "A", shipBy: "2026-12-01", lines: [line, line])
        #expect(throws: FieldError.self) { try UpsertOrdersRequest(orders: [order]).validate() }
        var single = order
        single.lines = [line]
        #expect(throws: FieldError.self) { try UpsertOrdersRequest(orders: [single, single]).validate() }
    }
}

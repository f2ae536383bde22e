import Testing

@testable import Storage

/// Rows and values as every engine hands them to a store, without any engine.
@Suite struct RowTests {
    let row = Row(
        columns: ["n", "r", "s", "b", "none"],
        values: [.integer(42), .real(2.5), .text("héllo"), .blob([0, 1, 255]), .null])

    @Test func readsEachColumnByNameAsItsType() throws {
        #expect(try row.int("n") == 42)
        #expect(try row.double("r") == 2.5)
        #expect(try row.double("n") == 42)  // a whole number stored for a real column
        #expect(try row.string("s") == "héllo")
        #expect(try row.bytes("b") == [0, 1, 255])
        #expect(try row.bytes("s") == Array("héllo".utf8))
        #expect(try row.optionalInt("none") == nil)
        #expect(try row.optionalString("none") == nil)
        #expect(row["missing"] == nil)
    }

    @Test func aMissingOrMistypedColumnIsAnErrorNeverACrash() {
        #expect(throws: StorageError.columnType(column: "s", expected: "integer")) { try row.int("s") }
        #expect(throws: StorageError.columnType(column: "n", expected: "text")) { try row.string("n") }
        #expect(throws: StorageError.columnType(column: "s", expected: "real")) { try row.double("s") }
        #expect(throws: StorageError.noSuchColumn("zz")) { try row.optionalInt("zz") }
    }

    @Test func swiftValuesBindAsTheirDatabaseValues() {
        let values: [any DatabaseValueConvertible] = [7, Int64(8), 1.5, true, "t", [UInt8]([9]), String?.none]
        #expect(
            values.map(\.databaseValue) == [
                .integer(7), .integer(8), .real(1.5), .integer(1), .text("t"), .blob([9]), .null,
            ])
    }
}

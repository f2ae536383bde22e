import Foundation
import Imaging
import Scanning
import Testing

@testable import BatchDecoding

@Suite struct ReportJSONTests {
    @Test func lineHasTheDocumentedShapeAndKeyOrder() throws {
        let report = ImageReport(
            file: "a/b \"c\".png",
            barcodes: [
                Barcode(
                    symbology: .ean13, payload: Array("5901234123457".utf8), quality: 12,
                    points: [.init(x: 1, y: 2), .init(x: 3, y: 4)], orientation: .up)
            ], milliseconds: 1.23456)
        let line = report.jsonLine
        #expect(!line.contains("\n"))
        #expect(
            line
                == #"{"file":"a/b \"c\".png","symbols":[{"symbology":"EAN-13","data":"5901234123457","quality":12,"points":[[1,2],[3,4]],"orientation":"UP"}],"ms":1.235}"#
        )
    }

    @Test func unreadableImagesCarryAnErrorAndNoSymbols() throws {
        let line = ImageReport(file: "x.png", barcodes: [], milliseconds: 0, error: .empty).jsonLine
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["error"] as? String == "empty file (0 bytes)")
        #expect((object["symbols"] as? [Any])?.isEmpty == true)
    }

    @Test func binaryAndControlCharacterPayloadsStayValidJSON() throws {
        let binary = Barcode(symbology: .qrcode, payload: [0xFF, 0xFE, 0x00, 0x41])
        let control = Barcode(symbology: .code128, payload: Array("A\u{1D}B\n\"".utf8))
        let line = ImageReport(file: "q.png", barcodes: [binary, control], milliseconds: 2).jsonLine
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let symbols = try #require(object["symbols"] as? [[String: Any]])
        #expect(symbols[0]["dataEncoding"] as? String == "base64")
        #expect(Data(base64Encoded: symbols[0]["data"] as? String ?? "") == Data([0xFF, 0xFE, 0x00, 0x41]))
        #expect(symbols[1]["dataEncoding"] == nil)
        #expect(symbols[1]["data"] as? String == "A\u{1D}B\n\"")
    }

    @Test func linesReadBackForScoring() throws {
        let original = ImageReport(
            file: "z.png",
            barcodes: [
                Barcode(symbology: .qrcode, payload: [0xFF, 0x01]), Barcode(symbology: .upca, text: "036000291452"),
            ],
            milliseconds: 4)
        let parsed = try ImageReport(jsonLine: original.jsonLine)
        #expect(parsed.file == "z.png")
        #expect(parsed.barcodes.map(\.payload) == original.barcodes.map(\.payload))
        #expect(parsed.barcodes.map(\.symbology) == [.qrcode, .upca])
        #expect(throws: ReportLineError.self) { try ImageReport(jsonLine: "[1,2]") }
        #expect(throws: ReportLineError.self) {
            try ImageReport(jsonLine: #"{"file":"a","symbols":[{"symbology":"Nope","data":""}]}"#)
        }
    }

    @Test func gs1SymbolsCarryTheirElementsAndMalformedOnesSaySo() throws {
        func symbol(_ barcode: Barcode) throws -> [String: Any] {
            let line = ImageReport(file: "g.png", barcodes: [barcode], milliseconds: 1).jsonLine
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try #require((object["symbols"] as? [[String: Any]])?.first)
        }
        let good = try symbol(
            Barcode(
                symbology: .dataMatrix, payload: Array("01095011015300031727010010AB-12\u{1D}21SN1".utf8),
                isGS1: true))
        #expect(
            good["gs1"] as? [String: String] == [
                "01": "09501101530003", "17": "2027-01-31", "10": "AB-12", "21": "SN1",
            ])
        #expect(good["gs1Error"] == nil)
        let line = ImageReport(
            file: "g.png",
            barcodes: [Barcode(symbology: .code128, payload: Array("0109501101530003".utf8), isGS1: true)],
            milliseconds: 1
        ).jsonLine
        #expect(line.contains(#""gs1":{"01":"09501101530003"}"#))

        let badCheck = try symbol(Barcode(symbology: .code128, payload: Array("0109501101530004".utf8), isGS1: true))
        #expect(badCheck["gs1"] == nil)
        #expect(badCheck["gs1Error"] as? String == "(01) 09501101530004 has a wrong check digit")
        let badDate = try symbol(
            Barcode(symbology: .databarExpanded, payload: Array(("0109501101530003" + "17271302").utf8)))
        #expect(badDate["gs1Error"] as? String == "(17) 271302 is not a date (YYMMDD)")

        // The same digits in a code that is not GS1 are just data.
        let plain = try symbol(Barcode(symbology: .code128, payload: Array("0109501101530003".utf8)))
        #expect(plain["gs1"] == nil && plain["gs1Error"] == nil)
    }
}

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
}

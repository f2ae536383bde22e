import Scanning
import Testing

@testable import BatchDecoding

@Suite struct ManifestTests {
    @Test func readsQuotedFieldsWithCommasQuotesAndLineBreaks() throws {
        let csv =
            "file,symbology,data\r\na.png,QR-Code,\"one, \"\"two\"\"\nthree\"\nsub/b.png,EAN-13,5901234123457\nnone.png,,\n"
        let manifest = try Manifest(csv: csv, baseDirectory: "/data/set")
        #expect(manifest.entries.count == 3)
        #expect(manifest.entries[0].data == "one, \"two\"\nthree")
        #expect(manifest.entries[1].path == "/data/set/sub/b.png")
        #expect(manifest.entries[2].expectsNoCode)
    }

    @Test func namesTheLineOfABadRow() {
        #expect(throws: ManifestError.badHeader(path: "m.csv")) {
            try Manifest(csv: "name,data\n", baseDirectory: "/", source: "m.csv")
        }
        #expect(
            throws: ManifestError.badRow(
                path: "m.csv", line: 3, reason: "expected 3 fields (file,symbology,data), found 2")
        ) {
            try Manifest(
                csv: "file,symbology,data\na.png,EAN-13,1\nb.png,EAN-13\n", baseDirectory: "/", source: "m.csv")
        }
        #expect(throws: ManifestError.badRow(path: "m.csv", line: 2, reason: "a quoted field is never closed")) {
            try Manifest(csv: "file,symbology,data\na.png,QR-Code,\"open\n", baseDirectory: "/", source: "m.csv")
        }
        #expect(throws: ManifestError.self) { try Manifest(contentsOf: "/nonexistent/manifest.csv") }
    }
}

@Suite struct ExpectationScorerTests {
    let manifest: Manifest

    init() throws {
        manifest = try Manifest(
            csv: """
                file,symbology,data
                upc.png,UPC-A,0036000291452
                upce.png,UPC-E,0012345000065
                addon.png,UPC-A+addon,002701100695102601
                bar.png,Codabar,A1234B
                gs1.png,DataBar-Exp,(01)95012345678903(3103)000123
                multi.png,EAN-13,5901234123457
                multi.png,QR-Code,LOC:A1
                empty.png,,
                missed.png,EAN-8,96385074
                """, baseDirectory: "/s")
    }

    func report(_ file: String, _ codes: [(Symbology, String)]) -> ImageReport {
        ImageReport(file: "/s/" + file, barcodes: codes.map { Barcode(symbology: $0.0, text: $0.1) }, milliseconds: 1)
    }

    @Test func alignsOutputConventionsBeforeComparing() {
        var scorer = ExpectationScorer(manifest: manifest)
        scorer.record(report("upc.png", [(.upca, "036000291452")]))
        scorer.record(report("upce.png", [(.upce, "01234565")]))
        scorer.record(report("addon.png", [(.upca, "027011006951 02601")]))
        scorer.record(report("bar.png", [(.codabar, "1234")]))
        scorer.record(report("gs1.png", [(.databarExpanded, "019501234567890331030001\u{1D}23")]))
        let card = scorer.scorecard()
        #expect(card.mismatchLines == [])
        #expect(card.total.correct == 5)
        #expect(card.notDecoded == ["empty.png", "missed.png", "multi.png"])
    }

    @Test func lineEndingsCompareAlike() throws {
        let crlf = try Manifest(csv: "file,symbology,data\nq.png,QR-Code,\"a\r\nb\"\n", baseDirectory: "/s")
        var scorer = ExpectationScorer(manifest: crlf)
        scorer.record(report("q.png", [(.qrcode, "a\nb")]))
        #expect(scorer.scorecard().total.correct == 1)
    }

    @Test func separateAddOnSymbolsAreNotOneReading() {
        var scorer = ExpectationScorer(manifest: manifest)
        scorer.record(report("addon.png", [(.upca, "027011006951"), (.ean5, "02601")]))
        #expect(scorer.scorecard().total.misread == 1)
    }

    @Test func countsMissesMisreadsAndFalsePositives() {
        var scorer = ExpectationScorer(manifest: manifest)
        scorer.record(report("missed.png", []))
        scorer.record(report("upc.png", [(.ean13, "5901234123457")]))
        scorer.record(report("empty.png", [(.i25, "1234")]))
        scorer.record(report("multi.png", [(.ean13, "5901234123457")]))  // the QR code is missing
        scorer.record(report("elsewhere.png", [(.ean13, "5901234123457")]))
        let card = scorer.scorecard()
        #expect(card.total.missed == 1)
        #expect(card.total.misread == 2)
        #expect(card.total.falsePositives == 1)
        #expect(card.unlisted == 1)
        #expect(!card.allMatch)
        #expect(card.rows.last?.symbology == Scorecard.noCodeLabel)
        #expect(card.mismatchLines.contains("/s/missed.png: missed, expected EAN-8 96385074"))
        #expect(card.mismatchLines.contains("/s/empty.png: false positive, found I2/5:1234"))
        #expect(card.table.split(separator: "\n").first?.hasPrefix("symbology") == true)
    }
}

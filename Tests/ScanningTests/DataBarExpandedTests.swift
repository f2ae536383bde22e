import Imaging
import TestSupport
import Testing

@testable import Scanning

/// Our GS1 DataBar Expanded decoder: on committed zint-made symbols ZBar alone misses or misreads
/// (`SampleImages/try-harder/databar-*`), on bit streams written here, and against damage and texture.
@Suite struct DataBarExpandedTests {
    let fast = BarcodeReader()
    let tryHarder = BarcodeReader(options: ReaderOptions(tryHarder: true))

    func image(_ name: String) throws -> GreyImage {
        try ImageLoader().load(path: Repository.sample("try-harder/databar-\(name).png"))
    }

    /// The element string with `|` for each group separator.
    func shown(_ codes: [Barcode]) -> [String] {
        codes.map { ($0.text ?? "<binary>").replacingOccurrences(of: "\u{1D}", with: "|") }
    }

    static let long = "0198898765432106159912313103001750" + "1012A|422123|21123456|423012345678901"

    @Test(arguments: ["long", "long-stacked"])
    func aLongSymbolZBarMissesIsReadWhenTryingHarder(name: String) throws {
        let image = try image(name)
        #expect(fast.read(image).isEmpty)
        let codes = tryHarder.read(image)
        #expect(shown(codes) == [Self.long])
        #expect(codes.first?.symbology == .databarExpanded)
        for point in codes.first?.points ?? [] {
            #expect((0..<image.width).contains(point.x) && (0..<image.height).contains(point.y))
        }
    }

    @Test(arguments: ["long", "long-stacked"])
    func anUpsideDownSymbolIsReadToo(name: String) throws {
        let upright = try image(name)
        let turned = GreyImage(width: upright.width, height: upright.height, pixels: upright.pixels.reversed())
        #expect(shown(DataBarExpandedReader.read(turned).map { [$0] } ?? []) == [Self.long])
    }

    @Test func anFNC1AfterLettersReturnsToDigitsEvenOnTheFastPath() throws {
        // ZBar reads this symbol but stays in letters after the FNC1 ("10ABC-12/x|1235V").
        #expect(shown(fast.read(try image("letters-then-date"))) == ["10ABC-12/x|15991231"])
    }

    @Test func lowerCaseAndPunctuationInAStackedSymbol() throws {
        #expect(shown(tryHarder.read(try image("lower-case-stacked"))) == ["011234567890123110lot a%b!c_d?e"])
    }

    @Test func aCompressedWeightAndDate() throws {
        #expect(shown(tryHarder.read(try image("weight-and-date"))) == ["0190012345678908310200175011100224"])
    }

    @Test func aDamagedCharacterIsRefusedNotGuessed() throws {
        var image = try image("long")
        // Paint over two modules inside the fourth pair's characters on every row.
        let x = image.width * 4 / 11
        for y in 0..<image.height {
            for dx in 0..<2 { image[x + dx, y] = 255 - image[x + dx, y] }
        }
        #expect(DataBarExpandedReader.read(image) == nil)
    }

    @Test func nothingIsFoundInTextureOrOtherCodes() throws {
        for sample in [
            "none/noise.png", "none/empty-bench.jpg", "none/shapes.pgm", "clean/code128.png", "clean/ean13.png",
        ] {
            #expect(
                DataBarExpandedReader.read(try ImageLoader().load(path: Repository.sample(sample))) == nil, "\(sample)")
        }
    }

    // MARK: The bit stream

    /// `bits` ("0"/"1", spaces ignored) padded to whole 12-bit values with `00100`, as an encoder pads
    /// (after latching from numeric mode with `0000`, which the tests write themselves).
    func values(_ bits: String) -> [Int] {
        var stream = bits.filter { $0 != " " }
        while stream.count % 12 != 0 { stream += "00100".prefix(12 - stream.count % 12) }
        return stride(from: 0, to: stream.count, by: 12).map { start in
            let slice = stream.dropFirst(start).prefix(12)
            return slice.reduce(0) { $0 << 1 | ($1 == "1" ? 1 : 0) }
        }
    }

    func text(_ bits: String) -> String? {
        DataBarExpandedText.decode(values(bits)).map { String(decoding: $0, as: UTF8.self) }
            .map { $0.replacingOccurrences(of: "\u{1D}", with: "|") }
    }

    /// `value` in `width` bits.
    func binary(_ value: Int, _ width: Int) -> String {
        (0..<width).reversed().map { value >> $0 & 1 == 1 ? "1" : "0" }.joined()
    }

    /// A digit pair in numeric mode (10 is FNC1).
    func pair(_ first: Int, _ second: Int) -> String { binary(11 * first + second + 8, 7) }

    @Test func generalPurposeDigitsLettersAndFNC1() {
        // Method 00, variable-length bits; "10" "12", latch to letters, "A", FNC1 (back to digits), "15" "99".
        let bits = "0 00 00" + pair(1, 0) + pair(1, 2) + "0000" + "100000" + "01111" + pair(1, 5) + pair(9, 9) + "0000"
        #expect(text(bits) == "1012A|1599")
    }

    @Test func anExplicitLatchToDigitsAfterFNC1IsTolerated() {
        let bits = "0 00 00" + pair(1, 0) + "0000" + "100000" + "01111" + "000" + pair(4, 2) + pair(2, 1) + "0000"
        #expect(text(bits) == "10A|4221")
    }

    @Test func iso646LettersAndPunctuation() {
        // Latch to letters, then to ISO 646: "a" (7 bits), "!" (8 bits), " " (8 bits).
        let bits = "0 00 00" + pair(2, 1) + "0000" + "00100" + "1011010" + "11101000" + "11111100"
        #expect(text(bits) == "21a! ")
    }

    @Test func aGTINWithWeightInMethod0100() {
        // 0100: AI 01 with indicator 9 (12 digits in four 10-bit groups), then 15 bits of weight.
        let groups = [1, 234, 567, 890].map { binary($0, 10) }.joined()
        let weight = binary(1750, 15)
        #expect(text("0 0100" + groups + weight) == "0190012345678908" + "3103001750")
    }

    @Test func anUnknownMethodOrATruncatedFixedMethodIsRefused() {
        #expect(text("0 0100" + String(repeating: "0", count: 30)) == nil)  // 0100 needs exactly 60 bits
        #expect(DataBarExpandedText.decode([]) == nil)
    }

    @Test func characterValuesFollowTheStandardsNumbering() {
        // The first and last width patterns of a 4-element, 8-module set with widths up to 5.
        #expect(DataBarCharacter.rssValue([1, 1, 1, 5], maxWidth: 5, noNarrow: false) == 0)
        #expect(DataBarCharacter.rssValue([5, 1, 1, 1], maxWidth: 5, noNarrow: false) > 0)
        #expect(DataBarCharacter.weight(row: 0, position: 3) == 0)
        #expect(DataBarCharacter.weight(row: 1, position: 5) == 32)  // 3^5 mod 211
    }
}

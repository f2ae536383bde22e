import Foundation
import Imaging
import TestSupport
import Testing

@testable import Scanning

/// Try-harder is described once, from the passes themselves; the README and the passes' behaviour
/// must agree with that description.
@Suite struct TryHarderDescriptionTests {
    typealias Pass = BarcodeReader.RetryPass

    static func readme() throws -> String {
        let text = try String(contentsOfFile: Repository.root + "/docs/decode.md", encoding: .utf8)
        return text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test func theReadmeSaysWhatTheCodeDoes() throws {
        let readme = try Self.readme()
        #expect(readme.contains(BarcodeReader.tryHarderDescription))
        let bullet = try #require(readme.components(separatedBy: "- **`--retry-passes LIST`**").dropFirst().first)
        // "`thickened`, `contrast-stretched`, … (the default, in that order)"
        let list = try #require(bullet.components(separatedBy: " (the default").first)
        let named = list.components(separatedBy: "`").enumerated()
            .filter { $0.offset % 2 == 1 && !$0.element.hasPrefix("-") }.map(\.element)
        #expect(named == Pass.standard.map(\.name))
    }

    @Test func theDescriptionNamesEveryPassInOrderWithItsConditions() {
        let text = BarcodeReader.tryHarderDescription
        var position = text.startIndex
        for pass in Pass.standard {
            let found = text.range(of: pass.summary, range: position..<text.endIndex)
            #expect(found != nil, "\(pass)")
            position = found?.upperBound ?? position
        }
        #expect(text.contains("up to 256 × 256 only"))
        #expect(text.contains("over 0.2 megapixels is halved first"))
    }

    @Test func thePassesApplyAsTheDescriptionSays() {
        // Mid-grey: contrast stretching applies; big enough for neither thickening nor the small passes.
        let big = GreyImage(width: 300, height: 300, pixels: [UInt8](repeating: 128, count: 90_000))
        let small = GreyImage(width: 200, height: 200, pixels: [UInt8](repeating: 128, count: 40_000))
        for pass in Pass.allCases where pass != .thickened {
            #expect(pass.applies(to: small), "\(pass)")
            #expect(pass.applies(to: big) == !pass.smallPicturesOnly, "\(pass)")
            #expect(pass.applies(to: small, reduced: true) == pass.triedOnHalvedPictures, "\(pass)")
        }
        let thin = GreyImage(width: 95, height: 1, pixels: [UInt8](repeating: 128, count: 95))
        #expect(Pass.thickened.applies(to: thin))
        #expect(!Pass.thickened.applies(to: small))
    }
}

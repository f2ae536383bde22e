import Foundation
import Testing

@testable import Wire

@Suite struct GTINTests {
    @Test func upcAAndEAN13FormsAreTheSameItem() {
        #expect(GTIN.normalised("036000291452") == "0036000291452")
        #expect(GTIN.sameItem("036000291452", "0036000291452"))
        #expect(!GTIN.sameItem("036000291452", "5901234123457"))
        #expect(GTIN.normalised("ABC") == nil)
    }

    @Test func aDataBarsGTIN14NamesTheSameItemAsItsGTIN13() {
        // DataBar reads as AI 01 + GTIN-14; indicator digit 0 is the item itself.
        #expect(GTIN.item("0100012345678905") == "0012345678905")
        #expect(GTIN.sameItem("0100012345678905", "012345678905"))  // the item's UPC-A
        #expect(GTIN.sameItem("00012345678905", "0012345678905"))  // a bare GTIN-14
        // DataBar Expanded on a weighed item: the GTIN, then the weight (and a group separator).
        #expect(GTIN.sameItem("01000123456789053103001750\u{1D}10LOT7", "0012345678905"))
        // Indicator 1: a case of the item, not the item; a wrong check digit names nothing.
        #expect(GTIN.item("0110012345678902") == "10012345678902")
        #expect(!GTIN.sameItem("0110012345678902", "0012345678905"))
        #expect(!GTIN.sameItem("0100012345678904", "0012345678905"))
        #expect(GTIN.item("01ABC") == nil && GTIN.item("0212345678901231") == nil)
    }

    @Test(arguments: [
        ("01234565", "012345000065"), ("04252614", "042100005264"), ("01234531", "012300000451"),
        ("01234145", "012340000015"), ("11234502", "112000003452"), ("00123424", "001200002344"),
    ])
    func expandsUPCE(upce: String, upca: String) {
        #expect(GTIN.upcEToUPCA(upce) == upca)
        #expect(GTIN.hasValidCheckDigit(upca))
    }

    @Test func checksCheckDigits() {
        #expect(GTIN.hasValidCheckDigit("5901234123457"))
        #expect(!GTIN.hasValidCheckDigit("5901234123458"))
        #expect(GTIN.hasValidCheckDigit("96385074"))
        #expect(!GTIN.hasValidCheckDigit("123"))
    }
}

@Suite struct TimestampTests {
    @Test func formatsUTCWithMilliseconds() {
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 1_796_036_400.5)) == "2026-11-30T11:00:00.500Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 951_782_400.007)) == "2000-02-29T00:00:00.007Z")
    }

    @Test func readsWhatItWritesAndOtherZones() throws {
        for seconds in [0, 1_796_036_400.5, 951_782_400.007, 4_102_444_799.999] {
            let date = Date(timeIntervalSince1970: seconds)
            let read = try #require(Timestamp.date(Timestamp.iso8601(date)))
            #expect(abs(read.timeIntervalSince(date)) < 0.001)
        }
        #expect(Timestamp.date("2026-11-30T10:00:00Z")?.timeIntervalSince1970 == 1_796_032_800)
        #expect(Timestamp.date("2026-11-30T11:30:00+01:30")?.timeIntervalSince1970 == 1_796_032_800)
        #expect(Timestamp.date("2026-11-30T08:00:00-02:00")?.timeIntervalSince1970 == 1_796_032_800)
        for bad in [
            "t", "", "2026-11-30", "2026-11-30 10:00:00Z", "2026-13-30T10:00:00Z", "2026-11-30T10:00:00",
            "2026-11-30T10:00:00.Z", "2026-11-30T10:00:00Zjunk", "2026-11-30T1a:00:00Z", "２０２６-11-30T10:00:00Z",
            String(repeating: "9", count: 41),
        ] {
            #expect(Timestamp.date(bad) == nil, "\(bad)")
        }
    }
}

@Suite struct JSONObjectWriterTests {
    @Test func writesKeysInOrderWithEscapes() {
        var line = JSONObjectWriter()
        line.add("b", string: "q\"\\\n\u{1}")
        line.add("a", number: -3)
        line.add("ms", milliseconds: 12.3456)
        line.add("small", milliseconds: 0.0004)
        line.add("ok", bool: true)
        #expect(line.finished() == #"{"b":"q\"\\\n\u0001","a":-3,"ms":12.346,"small":0.000,"ok":true}"#)
    }
}

import Foundation
import Testing

@testable import Timestamps

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
        #expect(Timestamp.date("2028-02-29T00:00:00Z") != nil)  // a leap day is a day
        #expect(Timestamp.date("2000-02-29T00:00:00Z") != nil)
        for bad in [
            "t", "", "2026-11-30", "2026-11-30 10:00:00Z", "2026-13-30T10:00:00Z", "2026-11-30T10:00:00",
            "2026-11-30T10:00:00.Z", "2026-11-30T10:00:00Zjunk", "2026-11-30T1a:00:00Z", "２０２６-11-30T10:00:00Z",
            String(repeating: "9", count: 41), "2026-02-30T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
            "1900-02-29T00:00:00Z",
        ] {
            #expect(Timestamp.date(bad) == nil, "\(bad)")
        }
    }

    @Test func readsHTTPDatesInTheirOneCurrentForm() {
        #expect(Timestamp.httpDate("Thu, 01 Jan 1970 00:01:00 GMT")?.timeIntervalSince1970 == 60)
        #expect(Timestamp.httpDate("Mon, 30 Nov 2026 10:00:00 GMT")?.timeIntervalSince1970 == 1_796_032_800)
        for bad in [
            "", "Thu, 01 Jan 1970 00:01:00 UTC", "Thu, 01 Foo 1970 00:01:00 GMT", "Thu, 1 Jan 1970 00:01:00 GMT",
            "Thu, 01 Jan 1970 00:01:00 GMT ", "Thu, 32 Jan 1970 00:01:00 GMT", "Thursday, 01-Jan-70 00:01:00 GMT",
        ] {
            #expect(Timestamp.httpDate(bad) == nil, "\(bad)")
        }
    }
}

import Foundation
import Testing

@testable import Timestamps

@Suite struct TimestampTests {
    @Test func formatsUTCWithMilliseconds() {
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 1_796_036_400.5)) == "2026-11-30T11:00:00.500Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 951_782_400.007)) == "2000-02-29T00:00:00.007Z")
    }

    /// The text written byte by byte agrees with Foundation's calendar for instants across the
    /// years a clock could claim, before 1970 too, and with any number of milliseconds (from 1583:
    /// ISO 8601's calendar is Gregorian all the way back, Foundation's turns Julian before 1582).
    @Test func agreesWithTheGregorianCalendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let second = Int64.random(in: -12_212_553_600...253_402_300_799, using: &generator)
            let millisecond = Int64.random(in: 0...999, using: &generator)
            // A tenth of a millisecond in, so that floating point never rounds down to the one before.
            let date = Date(timeIntervalSince1970: Double(second) + (Double(millisecond) + 0.1) / 1000)
            let parts = calendar.dateComponents(
                [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(second)))
            func padded(_ value: Int?, _ digits: Int) -> String {
                let text = String(value!)
                return String(repeating: "0", count: max(0, digits - text.count)) + text
            }
            let expected =
                "\(padded(parts.year, 4))-\(padded(parts.month, 2))-\(padded(parts.day, 2))T"
                + "\(padded(parts.hour, 2)):\(padded(parts.minute, 2)):\(padded(parts.second, 2))."
                + "\(padded(Int(millisecond), 3))Z"
            #expect(Timestamp.iso8601(date) == expected)
        }
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: -0.0005)) == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00.000Z")
        #expect(Timestamp.iso8601(Date.distantFuture).count <= Timestamp.maxTextLength)
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: -1e18)).count <= Timestamp.maxTextLength)
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
            "1900-02-29T00:00:00Z", "2026-11-30T10:00:61Z", "2026-11-30T10:00:00+24:00",
        ] {
            #expect(Timestamp.date(bad) == nil, "\(bad)")
        }
    }

    /// A leap second is valid RFC 3339 (a station's clock may show one): it is read as the second
    /// before it, so it is written back as a time every reader (a browser among them) can parse.
    @Test func aLeapSecondIsReadAsTheSecondBeforeIt() throws {
        let leap = try #require(Timestamp.date("2016-12-31T23:59:60Z"))
        #expect(leap == Timestamp.date("2016-12-31T23:59:59Z"))
        #expect(Timestamp.iso8601(leap) == "2016-12-31T23:59:59.000Z")
        let fraction = try #require(Timestamp.date("2016-12-31T23:59:60.250Z"))
        #expect(Timestamp.iso8601(fraction) == "2016-12-31T23:59:59.250Z")
        #expect(Timestamp.date("2017-01-01T00:59:60+01:00") == leap)
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

import Foundation

/// The one representation of a point in time, on the wire, in every database table and in the logs:
/// ISO 8601 UTC with milliseconds (`2026-11-30T10:00:00.123Z`). Its fixed width makes text order time
/// order, so SQL compares stored times as text. Formatted and read by hand: this runs on every
/// request and every queued action, where Foundation's formatters cost microseconds. HTTP's own date
/// form (`Retry-After`) is read here too.
///
///     Timestamp.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z"
public enum Timestamp {
    /// `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public static func iso8601(_ date: Date = Date()) -> String {
        String(unsafeUninitializedCapacity: maxTextLength) { write(date, into: $0) }
    }

    /// The longest text ``iso8601(_:)`` writes (a year past 9999 or before 0 takes more digits).
    public static let maxTextLength = 32

    /// Writes `date` as ``iso8601(_:)`` does into `buffer` (at least ``maxTextLength`` bytes);
    /// returns how many bytes it wrote. Byte by byte, with no string in between: this runs for every
    /// request's log line and every time a row records.
    public static func write(_ date: Date, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        // Whole milliseconds, rounded down; a time before 1970 takes the second before it and a
        // positive remainder, so that it reads as the same instant.
        let exact = (date.timeIntervalSince1970 * 1000).rounded(.down)
        // A time no clock reaches (±285 million years, or not a number) is written as the nearest
        // one that fits.
        let limit = 9e18
        let milliseconds = exact.isNaN ? 0 : Int64(max(-limit, min(limit, exact)))
        let (second, millisecond) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        var seconds = time_t(millisecond < 0 ? second - 1 : second)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var at = 0
        func put(_ value: Int, digits: Int) {
            var rest = value.magnitude
            var count = 1
            while rest >= 10 {
                rest /= 10
                count += 1
            }
            if value < 0 {
                buffer[at] = 0x2D  // a year before 0 (a clock far wrong): its sign, then its digits
                at += 1
            }
            var place = max(count, digits)
            rest = value.magnitude
            while place > 0 {
                place -= 1
                buffer[at + place] = 0x30 + UInt8(rest % 10)
                rest /= 10
            }
            at += max(count, digits)
        }
        func put(_ byte: UInt8) {
            buffer[at] = byte
            at += 1
        }
        put(Int(parts.tm_year) + 1900, digits: 4)
        put(0x2D)
        put(Int(parts.tm_mon) + 1, digits: 2)
        put(0x2D)
        put(Int(parts.tm_mday), digits: 2)
        put(0x54)  // T
        put(Int(parts.tm_hour), digits: 2)
        put(0x3A)
        put(Int(parts.tm_min), digits: 2)
        put(0x3A)
        put(Int(parts.tm_sec), digits: 2)
        put(0x2E)
        put(Int(millisecond < 0 ? millisecond + 1000 : millisecond), digits: 3)
        put(0x5A)  // Z
        return at
    }

    /// Appends `value` zero-padded to `digits`.
    static func append(_ value: Int, digits: Int, to text: inout String) {
        let decimal = String(value)
        if decimal.count < digits { text += String(repeating: "0", count: digits - decimal.count) }
        text += decimal
    }

    /// Reads an RFC 3339 time, which has a zone (`2026-11-30T10:00:00Z`, `…:00.123Z`, `…:00+01:00`;
    /// a leap second as the second before it), or nil: a time without a zone, a date alone or any
    /// other text is no time. By hand, like ``iso8601(_:)``, since the server reads one for every
    /// new request.
    public static func date(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard (20...40).contains(bytes.count) else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54 || bytes[10] == 0x74, bytes[13] == 0x3A,
            bytes[16] == 0x3A, let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        // A day the month does not have (2026-02-30) is no time: timegm would roll it into March.
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        guard day <= [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == 0x2E {  // .fff…
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if index == bytes.count - 1, bytes[index] == 0x5A || bytes[index] == 0x7A {  // Z
            offset = 0
        } else if index == bytes.count - 6, bytes[index] == 0x2B || bytes[index] == 0x2D, bytes[index + 3] == 0x3A,
            let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6),
            hours < 24, minutes < 60
        {
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == 0x2D ? -1 : 1)
        } else {
            return nil
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        // A leap second (`23:59:60Z`, valid RFC 3339) is read as the second before it: POSIX time has
        // no place for it, and written back it must be a time every reader (a browser) can parse.
        parts.tm_sec = Int32(min(second, 59))
        let seconds = timegm(&parts)
        return Date(timeIntervalSince1970: Double(seconds - offset) + fraction)
    }

    /// Reads an HTTP date in its one current form, IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, as
    /// `Retry-After` carries it), or nil.
    public static func httpDate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == 0x2C, bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20,
            bytes[16] == 0x20, bytes[19] == 0x3A, bytes[22] == 0x3A, bytes[25] == 0x20,
            bytes[26...] == Array("GMT".utf8)[...],
            let month = months.firstIndex(of: String(decoding: bytes[8..<11], as: UTF8.self))
        else { return nil }
        var iso = String(decoding: bytes[12..<16], as: UTF8.self) + "-"
        append(month + 1, digits: 2, to: &iso)
        iso += "-" + String(decoding: bytes[5..<7], as: UTF8.self) + "T"
        return date(iso + String(decoding: bytes[17..<25], as: UTF8.self) + "Z")
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}

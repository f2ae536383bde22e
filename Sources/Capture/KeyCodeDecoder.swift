/// Turns a handheld scanner's key events into codes. A USB scanner is a keyboard to Linux: it
/// "types" each code and presses Enter. The text is read from the **key codes** with a US HID table
/// (and Shift, and Ctrl+] for GS), never through the desktop's keyboard layout, which would turn a
/// German `Z` into `Y`. A scanner types a whole code in a burst; keys further apart than
/// ``Options/maxGap`` are a person at a keyboard, and what they typed is refused, not scanned.
///
///     var decoder = KeyCodeDecoder()
///     for event in events { if let read = decoder.feed(key: event.code, value: event.value, at: event.time) { … } }
public struct KeyCodeDecoder: Sendable {
    /// How codes end and what counts as a burst.
    public struct Options: Sendable, Equatable {
        /// The key that ends a code (Enter; keypad Enter always does too).
        public var terminator: UInt16 = KeyCode.enter
        /// The longest pause between two keys of one code, in seconds (scanners type a key every few
        /// milliseconds; people, tenths of a second apart).
        public var maxGap: Double = 0.05
        /// Text some scanners type in place of the GS separator of a GS1 code (e.g. `"~"`): turned into
        /// GS (U+001D). Ctrl+] always types GS.
        public var groupSeparator: String?
        /// The most characters one code may have.
        public var maxLength = 512

        public init() {}
    }

    /// What a finished burst was.
    public enum Read: Sendable, Equatable {
        /// A scanned code.
        case code(String)
        /// Keys that were not a scan, and why (typed too slowly, too long, or unknown keys).
        case refused(typed: String, reason: String)
    }

    public var options: Options
    private var text = ""
    private var lastKeyAt: Double?
    /// Key events were lost since the last code ended: whatever is typed up to the next terminator
    /// (or rest) is a fragment, refused.
    private var overflowed = false
    private var shift = 0
    private var control = 0
    private var unknownKeys = 0

    public init(options: Options = Options()) { self.options = options }

    /// Feeds one key event (`value` 1 pressed, 2 repeated, 0 released) at `time` seconds; returns a
    /// read when the event ends one.
    public mutating func feed(key: UInt16, value: Int32, at time: Double) -> Read? {
        switch key {
        case KeyCode.leftShift, KeyCode.rightShift:
            shift = max(0, shift + (value == 1 ? 1 : value == 0 ? -1 : 0))
            return nil
        case KeyCode.leftControl, KeyCode.rightControl:
            control = max(0, control + (value == 1 ? 1 : value == 0 ? -1 : 0))
            return nil
        default:
            break
        }
        guard value == 1 else { return nil }  // a character is typed when its key goes down
        // A pause longer than a scanner's ends what came before it: refused, and this key starts anew.
        var interrupted: Read?
        if let last = lastKeyAt, time - last > options.maxGap, !text.isEmpty || unknownKeys > 0 || overflowed {
            interrupted = .refused(
                typed: text,
                reason: overflowed
                    ? Self.overflowReason
                    : "keys \(Int(((time - last) * 1000).rounded())) ms apart: typed by a person, not scanned")
            reset()
        }
        lastKeyAt = time
        if key == options.terminator || key == KeyCode.keypadEnter {
            defer { reset() }
            if let interrupted { return interrupted }
            if overflowed { return .refused(typed: text, reason: Self.overflowReason) }
            if unknownKeys > 0 { return .refused(typed: text, reason: "\(unknownKeys) keys no barcode types") }
            guard !text.isEmpty else { return nil }
            var code = text
            if let replacement = options.groupSeparator, !replacement.isEmpty {
                code = code.replacingOccurrences(of: replacement, with: "\u{1D}")
            }
            return .code(code)
        }
        type(key)
        if let interrupted { return interrupted }
        if text.count > options.maxLength {
            let typed = text
            reset()
            return .refused(typed: String(typed.prefix(40)) + "…", reason: "over \(options.maxLength) characters")
        }
        return nil
    }

    /// The kernel dropped key events at `time` (its buffer overflowed while the reader was busy):
    /// the code in progress, or the next one if the drop fell between codes, lost keys. What is
    /// typed up to the next terminator (or rest) is refused then, never guessed: the keys after a
    /// drop are only the tail of a code. Held modifiers are then
    /// ``resynchronise(shiftHeld:controlHeld:)``'d from the device's state.
    public mutating func eventsDropped(at time: Double) {
        overflowed = true
        lastKeyAt = time
    }

    static let overflowReason = "the scanner's key events overflowed (some were lost): scan again"

    /// Sets which modifiers are held, as the device reports after dropped events (their releases
    /// may have been among the lost: a Shift counted as held forever would shift every later scan).
    public mutating func resynchronise(shiftHeld: Int, controlHeld: Int) {
        shift = max(0, shiftHeld)
        control = max(0, controlHeld)
    }

    /// How long keys must rest before what they typed without a terminator is given up (longer
    /// than any pause inside a scan).
    public var idleLimit: Double { max(0.3, 2 * options.maxGap) }

    /// Called while no key comes (at `time`, on the events' clock): keys typed more than
    /// ``idleLimit`` ago and never ended by the terminator are refused now, not when the next scan
    /// starts (a scanner whose suffix is Tab or nothing would otherwise be refused one scan late,
    /// as if a person had typed it, and its last scan never reported).
    public mutating func idle(at time: Double) -> Read? {
        guard let last = lastKeyAt, time - last > idleLimit, !text.isEmpty || unknownKeys > 0 || overflowed else {
            return nil
        }
        defer { reset() }
        if overflowed { return .refused(typed: text, reason: Self.overflowReason) }
        let terminator = options.terminator == KeyCode.tab ? "Tab" : "Enter"
        return .refused(
            typed: text,
            reason:
                "no \(terminator) followed these keys: a scanner that ends codes differently (check scanners[].terminator), or a person typing"
        )
    }

    /// Adds the character `key` types (with Shift or Ctrl as held), or counts it as unknown.
    private mutating func type(_ key: UInt16) {
        if control > 0 {
            if key == KeyCode.rightBrace { text.append("\u{1D}") } else { unknownKeys += 1 }  // Ctrl+] is GS
            return
        }
        guard let pair = Self.usLayout[key] else {
            unknownKeys += 1
            return
        }
        text.append(shift > 0 ? pair.shifted : pair.plain)
    }

    private mutating func reset() {
        text = ""
        unknownKeys = 0
        overflowed = false
    }

    /// The US layout: key code → (character, character with Shift). Keypad keys type their digit.
    static let usLayout: [UInt16: (plain: Character, shifted: Character)] = {
        var table: [UInt16: (Character, Character)] = [:]
        let digits = Array("1234567890"), shiftedDigits = Array("!@#$%^&*()")
        for index in 0..<10 { table[UInt16(2 + index)] = (digits[index], shiftedDigits[index]) }
        let rows: [(start: UInt16, plain: String, shifted: String)] = [
            (12, "-=", "_+"), (16, "qwertyuiop[]", "QWERTYUIOP{}"), (30, "asdfghjkl;'`", "ASDFGHJKL:\"~"),
            (43, "\\zxcvbnm,./", "|ZXCVBNM<>?"), (57, " ", " "),
        ]
        for row in rows {
            for (offset, (plain, shifted)) in zip(row.plain, row.shifted).enumerated() {
                table[row.start + UInt16(offset)] = (plain, shifted)
            }
        }
        let keypad: [(UInt16, Character)] = [
            (71, "7"), (72, "8"), (73, "9"), (74, "-"), (75, "4"), (76, "5"), (77, "6"), (78, "+"), (79, "1"),
            (80, "2"), (81, "3"), (82, "0"), (83, "."), (55, "*"), (98, "/"),
        ]
        for (key, character) in keypad { table[key] = (character, character) }
        return table
    }()
}

/// The Linux input key codes the decoder acts on (`linux/input-event-codes.h`).
public enum KeyCode {
    public static let enter: UInt16 = 28
    public static let keypadEnter: UInt16 = 96
    public static let tab: UInt16 = 15
    public static let leftShift: UInt16 = 42
    public static let rightShift: UInt16 = 54
    public static let leftControl: UInt16 = 29
    public static let rightControl: UInt16 = 97
    public static let rightBrace: UInt16 = 27
}

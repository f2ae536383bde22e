import Testing

@testable import Capture

/// Key events → codes, as a USB handheld scanner types them.
@Suite struct KeyCodeDecoderTests {
    /// The key events a US-layout scanner sends for `text` and its `terminator` key (Enter unless
    /// told), a key every `spacing` seconds.
    static func events(
        _ text: String, spacing: Double = 0.004, start: Double = 10, terminator: UInt16 = KeyCode.enter
    ) -> [(UInt16, Int32, Double)] {
        var keyOf: [Character: (UInt16, Bool)] = [:]
        for (key, pair) in KeyCodeDecoder.usLayout where key < 71 {
            keyOf[pair.plain] = (key, false)
            if keyOf[pair.shifted] == nil { keyOf[pair.shifted] = (key, true) }
        }
        var events: [(UInt16, Int32, Double)] = []
        var time = start
        for character in text {
            if character == "\u{1D}" {  // GS as Ctrl+]
                events += [
                    (KeyCode.leftControl, 1, time), (KeyCode.rightBrace, 1, time), (KeyCode.rightBrace, 0, time),
                ]
                events.append((KeyCode.leftControl, 0, time))
            } else if let (key, shifted) = keyOf[character] {
                if shifted { events.append((KeyCode.leftShift, 1, time)) }
                events += [(key, 1, time), (key, 0, time)]
                if shifted { events.append((KeyCode.leftShift, 0, time)) }
            }
            time += spacing
        }
        events += [(terminator, 1, time), (terminator, 0, time)]
        return events
    }

    static func decode(_ events: [(UInt16, Int32, Double)], options: KeyCodeDecoder.Options = .init())
        -> [KeyCodeDecoder.Read]
    {
        var decoder = KeyCodeDecoder(options: options)
        return events.compactMap { decoder.feed(key: $0.0, value: $0.1, at: $0.2) }
    }

    @Test func digitsLettersAndShiftedSymbolsComeFromKeyCodesNotALayout() {
        for code in ["5901234123457", "ABC-123/x", "+A123BJC5D6E71", "(01)09506000134352", "hello world!"] {
            #expect(Self.decode(Self.events(code)) == [.code(code)], "\(code)")
        }
        // Key 44 is Z on a US keyboard whatever the desktop's layout (on a German one it is Y).
        var decoder = KeyCodeDecoder()
        _ = decoder.feed(key: 44, value: 1, at: 0)
        #expect(decoder.feed(key: KeyCode.keypadEnter, value: 1, at: 0.001) == .code("z"))
    }

    @Test func groupSeparatorsOfGS1CodesStayIntact() {
        let gs1 = "0109506000134352\u{1D}10ABC123"
        #expect(Self.decode(Self.events(gs1)) == [.code(gs1)])
        var options = KeyCodeDecoder.Options()
        options.groupSeparator = "~"
        #expect(Self.decode(Self.events("0109506000134352~10ABC123"), options: options) == [.code(gs1)])
    }

    @Test func aPersonTypingIsRefusedAndAScanRightAfterStillCounts() {
        let typed = Self.events("123", spacing: 0.2, start: 10)
        let scanned = Self.events("4006381333931", start: 20)
        let reads = Self.decode(typed + scanned)
        #expect(reads.count == 4)
        #expect(reads.prefix(3).allSatisfy { if case .refused = $0 { true } else { false } })
        #expect(reads.last == .code("4006381333931"))
    }

    @Test func keyRepeatsReleasesAndStrayKeysAreHandled() {
        var decoder = KeyCodeDecoder()
        #expect(decoder.feed(key: 2, value: 1, at: 0) == nil)
        #expect(decoder.feed(key: 2, value: 2, at: 0.001) == nil)  // auto-repeat types nothing more
        #expect(decoder.feed(key: 2, value: 0, at: 0.002) == nil)
        #expect(decoder.feed(key: 59, value: 1, at: 0.003) == nil)  // F1: no barcode types it
        #expect(
            decoder.feed(key: KeyCode.enter, value: 1, at: 0.004)
                == .refused(typed: "1", reason: "1 keys no barcode types"))
        #expect(decoder.feed(key: KeyCode.enter, value: 1, at: 0.005) == nil)  // Enter alone reads nothing
        var short = KeyCodeDecoder.Options()
        short.maxLength = 4
        #expect(
            Self.decode(Self.events("123456"), options: short).first.map {
                if case .refused = $0 { true } else { false }
            } == true)
    }

    /// Events dropped by the kernel mid-code (a Shift release among them): what arrives up to the
    /// next Enter is only a fragment and is refused, and once the held keys are resynchronised the
    /// next scan reads plainly.
    @Test func droppedEventsRefuseTheFragmentAndResetStuckModifiers() {
        var decoder = KeyCodeDecoder()
        // "A" then Shift down for "B" when the kernel dropped the rest, the Shift release included.
        let before = Self.events("AB").prefix(5)
        for event in before { #expect(decoder.feed(key: event.0, value: event.1, at: event.2) == nil) }
        decoder.eventsDropped(at: 10.005)
        decoder.resynchronise(shiftHeld: 0, controlHeld: 0)
        // The tail of the code after the drop, and its Enter: refused, never taken for a code.
        let tail = Self.events("567", start: 10.02).compactMap { decoder.feed(key: $0.0, value: $0.1, at: $0.2) }
        guard case .refused(let typed, let reason)? = tail.first, tail.count == 1 else {
            Issue.record("the fragment after a drop was not refused: \(tail)")
            return
        }
        #expect(typed == "A567")
        #expect(reason.contains("overflowed"))
        let next = Self.events("234567", start: 20).compactMap { decoder.feed(key: $0.0, value: $0.1, at: $0.2) }
        #expect(next == [.code("234567")])

        // A drop with nothing typed after it (it swallowed a whole code) is reported once keys rest.
        decoder.eventsDropped(at: 30)
        #expect(decoder.idle(at: 30.1) == nil)
        #expect(decoder.idle(at: 31) == .refused(typed: "", reason: KeyCodeDecoder.overflowReason))
        #expect(decoder.idle(at: 40) == nil)
    }

    /// A scanner that ends codes with Tab (or nothing) while Enter is configured: each code is
    /// refused once the keys rest, with the reason, not one scan late as "typed by a person".
    @Test func keysNoTerminatorEndsAreRefusedWhenTheyRest() {
        var decoder = KeyCodeDecoder()
        let tabEnded = Self.events("234567").dropLast(2) + [(KeyCode.tab, 1, 10.03), (KeyCode.tab, 0, 10.03)]
        #expect(tabEnded.compactMap { decoder.feed(key: $0.0, value: $0.1, at: $0.2) }.isEmpty)
        #expect(decoder.idle(at: 10.1) == nil)  // a pause inside a scan is no reason yet
        guard case .refused(let typed, let reason)? = decoder.idle(at: 10.03 + decoder.idleLimit + 0.01) else {
            Issue.record("keys without a terminator were kept")
            return
        }
        #expect(typed == "234567")
        #expect(reason.contains("no Enter followed these keys"))
        #expect(reason.contains("scanners[].terminator"))
        #expect(decoder.idle(at: 20) == nil)
        // The next, properly ended scan is read as usual.
        let next = Self.events("111", start: 30).compactMap { decoder.feed(key: $0.0, value: $0.1, at: $0.2) }
        #expect(next == [.code("111")])
    }

    /// A scanner set to end codes with Tab (`terminator: "tab"`): Tab ends each code, GS1 separators
    /// included, keypad Enter still does, and keys ended by Enter are refused once they rest,
    /// naming Tab, never taken for a code.
    @Test func codesEndedByTabAreReadWhenTabIsTheTerminator() {
        var tab = KeyCodeDecoder.Options()
        tab.terminator = KeyCode.tab
        let gs1 = "0109506000134352\u{1D}10ABC123"
        for code in ["5901234123457", "ABC-123/x", gs1] {
            #expect(Self.decode(Self.events(code, terminator: KeyCode.tab), options: tab) == [.code(code)], "\(code)")
        }
        let twoScans =
            Self.events("036000291452", terminator: KeyCode.tab)
            + Self.events("96385074", start: 20, terminator: KeyCode.tab)
        #expect(Self.decode(twoScans, options: tab) == [.code("036000291452"), .code("96385074")])
        #expect(Self.decode(Self.events("111", terminator: KeyCode.keypadEnter), options: tab) == [.code("111")])

        var decoder = KeyCodeDecoder(options: tab)
        let enterEnded = Self.events("234567")
        #expect(enterEnded.compactMap { decoder.feed(key: $0.0, value: $0.1, at: $0.2) }.isEmpty)
        guard case .refused(_, let reason)? = decoder.idle(at: 10.03 + decoder.idleLimit + 0.01) else {
            Issue.record("keys ended by Enter were kept by a decoder ending codes with Tab")
            return
        }
        #expect(reason.contains("no Tab followed these keys"))
        // With the default terminator the same Tab-ended keys are no code.
        #expect(Self.decode(Self.events("5901234123457", terminator: KeyCode.tab)).isEmpty)
    }
}

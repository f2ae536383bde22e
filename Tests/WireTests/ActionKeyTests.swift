import Testing
import Wire

/// The keys stations give their actions: UUIDs of version 7, which sort by the time they were made.
@Suite struct ActionKeyTests {
    /// A generator whose bits a test chooses (all ones shows that only the random fields take them).
    struct Repeating: RandomNumberGenerator {
        var value: UInt64
        mutating func next() -> UInt64 { value }
    }

    @Test func aKeyIsAVersion7UUIDCarryingItsMillisecond() {
        var ones = Repeating(value: .max)
        let key = ActionKey.make(unixMilliseconds: 0x0193_A1F2_7C4E, using: &ones)
        #expect(key == "0193a1f2-7c4e-7fff-bfff-ffffffffffff")  // version 7, variant 0b10
        var zeros = Repeating(value: 0)
        #expect(ActionKey.make(unixMilliseconds: 1, using: &zeros) == "00000000-0001-7000-8000-000000000000")
        #expect(ActionKey.unixMilliseconds(of: key) == 0x0193_A1F2_7C4E)
        #expect(ActionKey.unixMilliseconds(of: "not-a-key") == nil)
        #expect(ActionKey.unixMilliseconds(of: "0193a1f2-7c4e-4fff-bfff-ffffffffffff") == nil)  // a version 4
    }

    @Test func laterKeysSortAfterEarlierOnesAndKeysOfOneMillisecondDiffer() {
        let now = ActionKey.currentUnixMilliseconds()
        let keys = (0..<1000).map { ActionKey.make(unixMilliseconds: now + UInt64($0 / 10)) }
        let byTime = keys.enumerated().map { (millisecond: $0.offset / 10, key: $0.element) }
        // Sorted as text, every key of a millisecond comes before every key of the next one.
        let sorted = byTime.sorted { $0.key < $1.key }
        #expect(sorted.map(\.millisecond) == byTime.map(\.millisecond))
        #expect(Set(keys).count == keys.count)
        #expect(keys.allSatisfy { $0.utf8.count == 36 && ActionKey.unixMilliseconds(of: $0) != nil })
        // The wall clock's millisecond, within the test's own time.
        let made = ActionKey.unixMilliseconds(of: ActionKey.make()) ?? 0
        #expect(made >= now && made <= ActionKey.currentUnixMilliseconds())
    }
}

import Imaging

/// GS1 DataBar Expanded and Expanded Stacked, read from an image's rows by our own decoder.
///
/// ZBar 0.23 misses long Expanded symbols and stacked ones with many rows, and it mistranslates an
/// FNC1 in alphanumeric data (it does not return to numeric mode, so `(10)A1(15)991231` comes out as
/// letters). The reader finds the symbol's pairs (data character, finder, data character) on every
/// scan line in both directions, chains the pairs that touch, counts how often each chain is seen,
/// and accepts a symbol only when its chains spell one of the standard's finder sequences, each was
/// seen on at least two lines, the mod-211 check character agrees, and the bits decode
/// (`DataBarExpandedText`). A stacked symbol's rows are chains of their own, in either direction.
enum DataBarExpandedReader {
    /// The symbol in `image`, or nil.
    static func read(_ image: GreyImage) -> Barcode? {
        var seen: [[Pair]: Sighting] = [:]
        let step = max(1, image.height / 400)
        var previous: (runs: [Int], chains: [Chain])?
        for y in stride(from: 0, to: image.height, by: step) {
            guard let runs = scanLine(y, in: image) else { continue }
            let chains: [Chain]
            if let previous, previous.runs == runs {
                chains = previous.chains
            } else {
                // A finder read backward is the same finder reversed: look for them once.
                let finders = finderPositions(in: runs)
                let mirroredFinders = Dictionary(
                    uniqueKeysWithValues: finders.map { (runs.count - 5 - $0.key, -$0.value) })
                chains =
                    Self.chains(in: runs, finders: finders)
                    + Self.chains(in: runs.reversed(), finders: mirroredFinders).map(\.mirrored)
                previous = (runs, chains)
            }
            let total = runs.reduce(0, +)
            for chain in chains {
                let left = chain.mirroredRead ? total - chain.end : chain.start
                let right = chain.mirroredRead ? total - chain.start : chain.end
                seen[chain.pairs, default: Sighting()].record(y: y, from: left, to: right - 1)
            }
        }
        guard let sequence = validSequence(in: seen) else { return nil }
        let pairs = sequence.flatMap(\.pairs)
        var values = [pairs[0].right!.value]
        for pair in pairs.dropFirst() { values += [pair.left.value] + (pair.right.map { [$0.value] } ?? []) }
        guard let text = DataBarExpandedText.decode(values) else { return nil }
        let extent = sequence.map(\.sighting).reduce(Sighting()) { $0.merged(with: $1) }
        return Barcode(
            symbology: .databarExpanded, payload: text, quality: sequence.map(\.sighting.count).min() ?? 0,
            points: extent.corners, orientation: .up)
    }

    /// What identifies a pair: its finder (signed, see ``DataBarCharacter/finder(_:)``) and characters.
    struct Pair: Hashable {
        var finder: Int
        var left: DataBarCharacter.Value
        var right: DataBarCharacter.Value?
    }

    /// Adjacent pairs found on one scan line (each pair's last element touching the next one's
    /// first), and where they lie, in pixels from the line's start.
    private struct Chain {
        var pairs: [Pair]
        var start: Int
        var end: Int
        var mirroredRead = false

        var mirrored: Chain {
            var copy = self
            copy.mirroredRead = true
            return copy
        }
    }

    /// Where and how often a chain of pairs was seen.
    private struct Sighting {
        var count = 0
        var minX = Int.max
        var maxX = Int.min
        var minY = Int.max
        var maxY = Int.min

        mutating func record(y: Int, from left: Int, to right: Int) {
            count += 1
            (minX, maxX, minY, maxY) = (min(minX, left), max(maxX, right), min(minY, y), max(maxY, y))
        }

        func merged(with other: Sighting) -> Sighting {
            Sighting(
                count: count + other.count, minX: min(minX, other.minX), maxX: max(maxX, other.maxX),
                minY: min(minY, other.minY), maxY: max(maxY, other.maxY))
        }

        var corners: [Barcode.Point] {
            [.init(x: minX, y: minY), .init(x: maxX, y: minY), .init(x: maxX, y: maxY), .init(x: minX, y: maxY)]
        }
    }

    /// The finder sequences of symbols of 2 to 11 pairs (ISO/IEC 24724, table 14): A…F as 1…6,
    /// negative where the finder reads backward.
    private static let sequences: [[Int]] = [
        [1, -1], [1, -2, 2], [1, -3, 2, -4], [1, -5, 2, -4, 3], [1, -5, 2, -4, 4, -6], [1, -5, 2, -4, 5, -6, 6],
        [1, -1, 2, -2, 3, -3, 4, -4], [1, -1, 2, -2, 3, -3, 4, -5, 5], [1, -1, 2, -2, 3, -3, 4, -5, 6, -6],
        [1, -1, 2, -2, 3, -4, 4, -5, 5, -6, 6],
    ]

    /// The finders that may end a symbol with a pair of one character.
    private static let halfPairFinders: Set<Int> = [-1, 2, -4, 3, -6, 6, 5]

    /// The chains that spell the first finder sequence satisfying the check character: each chain
    /// that starts the symbol (finder A, whose check character tells the sequence), followed at each
    /// place by one of the two most often seen chains that fit there.
    private static func validSequence(in seen: [[Pair]: Sighting]) -> [(pairs: [Pair], sighting: Sighting)]? {
        let chains = seen.filter { $0.value.count >= 2 }.map { (pairs: $0.key, sighting: $0.value) }
            .sorted { ($0.sighting.count, $0.sighting.minY) > ($1.sighting.count, $1.sighting.minY) }
        for first in chains where first.pairs[0].finder == 1 {
            let index = (first.pairs[0].left.value / 211 + 5) / 2 - 2
            guard sequences.indices.contains(index), fits(first.pairs, sequences[index][...]) else { continue }
            var stack = [first]
            if complete(&stack, sequences[index].dropFirst(first.pairs.count), from: chains) { return stack }
        }
        return nil
    }

    /// Whether `pairs` can stand at the start of `finders`: the same finders, and a pair without its
    /// second character only at the very end of the symbol.
    private static func fits(_ pairs: [Pair], _ finders: ArraySlice<Int>) -> Bool {
        pairs.count <= finders.count && zip(pairs, finders).allSatisfy { $0.finder == $1 }
            && (pairs.last!.right != nil || pairs.count == finders.count)
    }

    private static func complete(
        _ stack: inout [(pairs: [Pair], sighting: Sighting)], _ finders: ArraySlice<Int>,
        from chains: [(pairs: [Pair], sighting: Sighting)]
    ) -> Bool {
        guard !finders.isEmpty else { return checksumHolds(stack.flatMap(\.pairs)) }
        for chain in chains.lazy.filter({ fits($0.pairs, finders) }).prefix(2) {
            stack.append(chain)
            if complete(&stack, finders.dropFirst(chain.pairs.count), from: chains) { return true }
            stack.removeLast()
        }
        return false
    }

    /// The check character (the first pair's left character) against the weighted sum of the others.
    private static func checksumHolds(_ pairs: [Pair]) -> Bool {
        let sum = pairs.reduce(0) { $0 + $1.left.checksum + ($1.right?.checksum ?? 0) }
        let characters = 2 * pairs.count - (pairs.last?.right == nil ? 1 : 0)
        return sum % 211 + 211 * (characters - 4) == pairs[0].left.value
    }

    /// The finders on a scan line of run widths, by the index of their first run.
    private static func finderPositions(in runs: [Int]) -> [Int: Int] {
        guard runs.count >= 13 else { return [:] }
        var found: [Int: Int] = [:]
        for index in 0...(runs.count - 5) {
            if let finder = DataBarCharacter.finder(runs[index..<(index + 5)]) { found[index] = finder }
        }
        return found
    }

    /// The chains of adjacent pairs on a scan line of run widths (read left to right as given) with
    /// `finders` (from ``finderPositions(in:)``, for the runs in this order).
    private static func chains(in runs: some Collection<Int>, finders: [Int: Int]) -> [Chain] {
        guard !finders.isEmpty else { return [] }
        let runs = Array(runs)
        var offsets = [0]
        for width in runs { offsets.append(offsets.last! + width) }
        var pairAt: [Int: Pair] = [:]  // by the run index of the pair's finder
        for (index, finder) in finders where index >= 8 {
            if let pair = pair(finder, at: index, in: runs, offsets: offsets) { pairAt[index] = pair }
        }
        var chains: [Chain] = []
        for index in pairAt.keys.sorted() where pairAt[index - 21]?.right == nil {
            var pairs = [pairAt[index]!]
            var last = index
            while pairs.last!.right != nil, let next = pairAt[last + 21] {
                pairs.append(next)
                last += 21
            }
            let end = pairs.last!.right == nil ? last + 5 : last + 13
            chains.append(Chain(pairs: pairs, start: offsets[index - 8], end: offsets[end]))
        }
        return chains
    }

    /// The pair around `finder`, whose first run is run `index`, if the runs beside it make one.
    private static func pair(_ finder: Int, at index: Int, in runs: [Int], offsets: [Int]) -> Pair? {
        let module = Double(offsets[index + 5] - offsets[index]) / 15
        guard
            let left = DataBarCharacter.read(
                Array(runs[(index - 8)..<index]), finder: finder, right: false, module: module)
        else { return nil }
        // A first pair's check character says how many characters follow (4 to 22 in all).
        if finder == 1 && !(0...18).contains(left.value / 211) { return nil }
        var right: DataBarCharacter.Value?
        if index + 13 <= runs.count {
            right = DataBarCharacter.read(
                Array(runs[(index + 5)..<(index + 13)].reversed()), finder: finder, right: true, module: module)
        }
        guard right != nil || halfPairFinders.contains(finder) else { return nil }
        return Pair(finder: finder, left: left, right: right)
    }

    /// The run widths of row `y`, split at the middle of its darkest and lightest pixels, from its
    /// first column; nil for a row with too little contrast to hold bars.
    private static func scanLine(_ y: Int, in image: GreyImage) -> [Int]? {
        image.pixels.withUnsafeBufferPointer { pixels in
            let row = pixels[(y * image.width)..<((y + 1) * image.width)]
            guard let low = row.min(), let high = row.max(), Int(high) - Int(low) >= 48 else { return nil }
            let threshold = (Int(low) + Int(high)) / 2
            var runs: [Int] = []
            var dark = Int(row.first!) < threshold
            var length = 0
            for pixel in row {
                if (Int(pixel) < threshold) == dark {
                    length += 1
                } else {
                    runs.append(length)
                    dark.toggle()
                    length = 1
                }
            }
            runs.append(length)
            return runs
        }
    }
}

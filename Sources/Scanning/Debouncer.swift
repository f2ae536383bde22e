/// Turns the codes seen frame by frame into scans: a code counts once per presence. It must be seen
/// in `confirmFrames` consecutive frames before it counts, and it counts again only after it has
/// been out of view for `holdOff` seconds. Three deliberate scans of one item (out of view between
/// them) are three scans; one item held in view for ten seconds is one; a code that flickers out
/// for a frame or two is still the same presence.
///
/// Time is the frames' capture time, never the wall clock, so a replay gives the same scans at any
/// processing speed.
///
///     var debouncer = Debouncer(options: .init())
///     let scans = debouncer.observe(reader.read(frame.image).map(Debouncer.Code.init), at: frame.time)
public struct Debouncer: Sendable {
    /// How many consecutive frames confirm a code, and how long it must be gone to count again.
    public struct Options: Sendable, Equatable {
        /// Frames that confirm an EAN/UPC code (default 2, as ZBar's own video default).
        public var eanUpcFrames: Int
        /// Frames that confirm any other code (default 1: their checks are stronger).
        public var otherFrames: Int
        /// Seconds a code must be out of view before it counts again (default 1.5).
        public var holdOff: Double

        public init(eanUpcFrames: Int = 2, otherFrames: Int = 1, holdOff: Double = 1.5) {
            self.eanUpcFrames = eanUpcFrames
            self.otherFrames = otherFrames
            self.holdOff = holdOff
        }

        func confirmFrames(_ symbology: Symbology) -> Int {
            [.ean13, .ean8, .upca, .upce, .isbn10, .isbn13].contains(symbology) ? eanUpcFrames : otherFrames
        }
    }

    /// A code as the debouncer tracks it: its symbology and payload.
    public struct Code: Hashable, Sendable {
        public var symbology: Symbology
        public var payload: [UInt8]

        public init(symbology: Symbology, payload: [UInt8]) {
            self.symbology = symbology
            self.payload = payload
        }

        public init(_ barcode: Barcode) { self.init(symbology: barcode.symbology, payload: barcode.payload) }
    }

    private struct Presence {
        var consecutive: Int
        var lastSeen: Double
        var counted: Bool
    }

    public let options: Options
    private var presences: [Code: Presence] = [:]

    public init(options: Options = Options()) { self.options = options }

    /// Feeds one frame's codes (captured at `time`, in seconds); returns the codes that count now.
    /// A frame not `complete` (part of it was not read: see `BarcodeReader.readFrame`) breaks no
    /// code's run: one it does not show may be there all the same.
    public mutating func observe(_ codes: some Sequence<Code>, at time: Double, complete: Bool = true) -> [Code] {
        let seen = Set(codes)
        var confirmed: [Code] = []
        for code in seen {
            var presence = presences[code] ?? Presence(consecutive: 0, lastSeen: -.infinity, counted: false)
            // Back after the hold-off: a new presence. Still within it: the same one (a flicker).
            if time - presence.lastSeen >= options.holdOff {
                presence = Presence(consecutive: 0, lastSeen: time, counted: false)
            }
            presence.consecutive += 1
            presence.lastSeen = time
            if !presence.counted && presence.consecutive >= options.confirmFrames(code.symbology) {
                presence.counted = true
                confirmed.append(code)
            }
            presences[code] = presence
        }
        // Codes not in this frame: the run of consecutive frames is broken; forget long-gone ones.
        for (code, presence) in presences where complete && !seen.contains(code) {
            if time - presence.lastSeen >= options.holdOff {
                presences[code] = nil
            } else {
                presences[code]?.consecutive = 0
            }
        }
        return confirmed.sorted { $0.payload.lexicographicallyPrecedes($1.payload) }
    }
}

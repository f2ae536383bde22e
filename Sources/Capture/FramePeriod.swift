/// A frame source's frame period as its frames' capture times show it: the median of the last
/// steps between one frame and the next (a dropped frame makes one step longer, and the median
/// passes over it), or `assumed` until a step is seen.
///
///     var period = FramePeriod()
///     let seconds = period.observe(frame.time)   // ≈ 1/30 for a 30 frames/s camera
public struct FramePeriod: Sendable {
    private var last: Double?
    private var steps: [Double] = []
    private let assumed: Double
    /// How many of the latest steps the median is taken over.
    static let window = 9

    public init(assumed: Double = 1.0 / 30) { self.assumed = assumed }

    /// Notes the capture time (in seconds) of the next frame; returns the period as it stands.
    public mutating func observe(_ time: Double) -> Double {
        if let last, time > last {
            steps.append(time - last)
            if steps.count > Self.window { steps.removeFirst() }
        }
        last = time
        guard !steps.isEmpty else { return assumed }
        return steps.sorted()[(steps.count - 1) / 2]
    }
}

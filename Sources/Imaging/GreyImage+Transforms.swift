/// Whole-image transforms the try-harder reader feeds to ZBar when a first look finds nothing.
extension GreyImage {
    /// Light for dark: a code printed light on a dark ground reads as an ordinary one.
    public func inverted() -> GreyImage {
        GreyImage(width: width, height: height, pixels: pixels.map { 255 - $0 })
    }

    /// The darkest 1% mapped to black and the lightest 1% to white, linearly between: a washed-out or
    /// underexposed picture gets the contrast ZBar's fixed thresholds expect. Unchanged when flat.
    public func contrastStretched() -> GreyImage {
        let (low, high) = levelRange()
        guard high > low else { return self }
        let table = (0..<256).map { value in
            UInt8(max(0, min(255, (value - low) * 255 / (high - low))))
        }
        return GreyImage(width: width, height: height, pixels: pixels.map { table[Int($0)] })
    }

    /// The grey levels that clip the darkest and the lightest 1% of pixels.
    func levelRange() -> (low: Int, high: Int) {
        var histogram = [Int](repeating: 0, count: 256)
        for value in pixels { histogram[Int(value)] += 1 }
        let clip = pixels.count / 100
        var low = 0
        var seen = 0
        while low < 255, seen + histogram[low] <= clip {
            seen += histogram[low]
            low += 1
        }
        var high = 255
        seen = 0
        while high > 0, seen + histogram[high] <= clip {
            seen += histogram[high]
            high -= 1
        }
        return (low, high)
    }
}

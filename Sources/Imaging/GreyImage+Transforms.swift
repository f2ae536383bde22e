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

    /// The picture in a margin of `margin` pixels of its lightest level (the 99th percentile): a code
    /// cropped to its bars gets the quiet zone ZBar needs to find where it starts and ends.
    public func padded(by margin: Int) -> GreyImage {
        let light = UInt8(levelRange().high)
        let outWidth = width + 2 * margin
        var out = [UInt8](repeating: light, count: outWidth * (height + 2 * margin))
        for y in 0..<height {
            let start = (y + margin) * outWidth + margin
            out[start..<(start + width)] = pixels[(y * width)..<((y + 1) * width)]
        }
        return GreyImage(width: outWidth, height: height + 2 * margin, pixels: out)
    }

    /// The part of the picture from (`x`, `y`), `width` × `height` pixels, cut to the picture's own
    /// bounds (empty when they do not meet).
    public func cropped(x: Int, y: Int, width cutWidth: Int, height cutHeight: Int) -> GreyImage {
        let left = min(max(x, 0), width)
        let top = min(max(y, 0), height)
        let right = min(max(x.addingReportingOverflow(cutWidth).partialValue, left), width)
        let bottom = min(max(y.addingReportingOverflow(cutHeight).partialValue, top), height)
        var out: [UInt8] = []
        out.reserveCapacity((right - left) * (bottom - top))
        for row in top..<bottom { out += pixels[(row * width + left)..<(row * width + right)] }
        return GreyImage(width: right - left, height: bottom - top, pixels: out)
    }

    /// The grey levels that clip the darkest and the lightest 1% of pixels.
    public func levelRange() -> (low: Int, high: Int) {
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

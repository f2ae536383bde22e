/// Resampling and filtering the try-harder reader uses when a first look finds nothing: a code too
/// big or too noisy for ZBar's scanlines reads better halved or smoothed, a blurred one sharpened,
/// and a QR code with modules of one or two pixels doubled.
extension GreyImage {
    /// Half the size, each pixel the mean of a 2×2 block (an odd last row or column is dropped).
    public func halved() -> GreyImage {
        let outWidth = width / 2
        let outHeight = height / 2
        var out = [UInt8](repeating: 0, count: outWidth * outHeight)
        for y in 0..<outHeight {
            let top = 2 * y * width
            let bottom = top + width
            for x in 0..<outWidth {
                let sum =
                    Int(pixels[top + 2 * x]) + Int(pixels[top + 2 * x + 1]) + Int(pixels[bottom + 2 * x])
                    + Int(pixels[bottom + 2 * x + 1])
                out[y * outWidth + x] = UInt8((sum + 2) / 4)
            }
        }
        return GreyImage(width: outWidth, height: outHeight, pixels: out)
    }

    /// Smoothed with the binomial kernel 1-4-6-4-1 across and down (a Gaussian of σ ≈ 1): speckle
    /// and JPEG ringing fade, bars stay.
    public func blurred() -> GreyImage {
        convolved(Self.binomial5)
    }

    /// An unsharp mask: each pixel pushed away from its smoothed surroundings (σ ≈ 2) by as much
    /// again, which restores the edges of a slightly blurred code.
    public func sharpened() -> GreyImage {
        let smooth = convolved(Self.binomial5).convolved(Self.binomial5).convolved(Self.binomial5)
        var out = pixels
        for index in out.indices {
            out[index] = UInt8(clamping: 2 * Int(pixels[index]) - Int(smooth.pixels[index]))
        }
        return GreyImage(width: width, height: height, pixels: out)
    }

    /// Twice the size by Catmull–Rom interpolation, which keeps edges sharper than bilinear.
    public func doubled() -> GreyImage {
        // Two phases, 1/4 of a pixel before and after each source pixel: Catmull–Rom weights (×128)
        // on the pixels i-2...i+1 and i-1...i+2.
        filtered(across: Self.catmullRomDoubling, down: Self.catmullRomDoubling)
    }

    /// Each row (or column) repeated until the image is at least `minimum` pixels each way; an image
    /// that is already big enough comes back as it is.
    public func thickened(to minimum: Int) -> GreyImage {
        guard width > 0, height > 0 else { return self }
        let across = width < minimum ? (minimum + width - 1) / width : 1
        let down = height < minimum ? (minimum + height - 1) / height : 1
        guard across > 1 || down > 1 else { return self }
        var out: [UInt8] = []
        out.reserveCapacity(width * across * height * down)
        for y in 0..<height {
            let row = pixels[(y * width)..<((y + 1) * width)].flatMap { repeatElement($0, count: across) }
            for _ in 0..<down { out += row }
        }
        return GreyImage(width: width * across, height: height * down, pixels: out)
    }

    /// A 1-D resampling filter: each source pixel i gives `phases.count` output pixels, output phase p
    /// being the sum of `phases[p][k] * source[i + offset + k]`, divided by `divisor` (edges repeat
    /// the border pixel).
    struct Filter {
        var phases: [[Int32]]
        var offset: Int
        var divisor: Int32
    }

    static let binomial5 = Filter(phases: [[1, 4, 6, 4, 1]], offset: -2, divisor: 16)
    static let catmullRomDoubling = Filter(
        phases: [[-3, 29, 111, -9, 0], [0, -9, 111, 29, -3]], offset: -2, divisor: 128)

    /// The image convolved with `kernel` across and down.
    func convolved(_ kernel: Filter) -> GreyImage {
        filtered(across: kernel, down: kernel)
    }

    /// `across` applied to every row, then `down` to every column.
    func filtered(across: Filter, down: Filter) -> GreyImage {
        let rows = filteredRows(across)
        return rows.filteredColumns(down)
    }

    private func filteredRows(_ filter: Filter) -> GreyImage {
        let phaseCount = filter.phases.count
        let taps = filter.phases[0].count
        let outWidth = width * phaseCount
        var out = [UInt8](repeating: 0, count: outWidth * height)
        guard width > 0 else { return GreyImage(width: 0, height: height, pixels: []) }
        // One padded row at a time, so the inner loop needs no bounds clamping.
        let pad = taps
        var padded = [Int32](repeating: 0, count: width + 2 * pad)
        let half = filter.divisor / 2
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                padded.withUnsafeMutableBufferPointer { row in
                    for y in 0..<height {
                        let base = y * width
                        for x in 0..<pad { row[x] = Int32(source[base]) }
                        for x in 0..<width { row[pad + x] = Int32(source[base + x]) }
                        for x in 0..<pad { row[pad + width + x] = Int32(source[base + width - 1]) }
                        for (phase, weights) in filter.phases.enumerated() {
                            for x in 0..<width {
                                var sum: Int32 = half
                                let start = pad + x + filter.offset
                                for k in 0..<taps { sum += weights[k] * row[start + k] }
                                target[y * outWidth + x * phaseCount + phase] = UInt8(
                                    clamping: sum / filter.divisor)
                            }
                        }
                    }
                }
            }
        }
        return GreyImage(width: outWidth, height: height, pixels: out)
    }

    private func filteredColumns(_ filter: Filter) -> GreyImage {
        let phaseCount = filter.phases.count
        let taps = filter.phases[0].count
        let outHeight = height * phaseCount
        var out = [UInt8](repeating: 0, count: width * outHeight)
        guard height > 0 else { return GreyImage(width: width, height: 0, pixels: []) }
        var sums = [Int32](repeating: 0, count: width)
        let half = filter.divisor / 2
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                sums.withUnsafeMutableBufferPointer { sum in
                    for y in 0..<height {
                        for (phase, weights) in filter.phases.enumerated() {
                            for x in 0..<width { sum[x] = half }
                            for k in 0..<taps where weights[k] != 0 {
                                let weight = weights[k]
                                let row = min(height - 1, max(0, y + filter.offset + k)) * width
                                for x in 0..<width { sum[x] += weight * Int32(source[row + x]) }
                            }
                            let outRow = (y * phaseCount + phase) * width
                            for x in 0..<width { target[outRow + x] = UInt8(clamping: sum[x] / filter.divisor) }
                        }
                    }
                }
            }
        }
        return GreyImage(width: width, height: outHeight, pixels: out)
    }
}

import Foundation

/// Resampling along axes of the caller's choosing: the try-harder reader's angled look cuts a code
/// turned away from the image axes out of the picture with its bars upright, and the tests and
/// benchmarks turn pictures by any angle.
extension GreyImage {
    /// A point, or a step between points, in a picture's pixel coordinates (x right, y down).
    public struct Vector: Sendable, Equatable {
        public var x: Double
        public var y: Double

        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// A `width` × `height` picture whose pixel (x, y) is this picture at `origin + x·across +
    /// y·down`, interpolated bilinearly between the four nearest pixels; a point outside this picture
    /// takes `outside`, or the nearest border pixel when `outside` is nil. With `averaging` above 1,
    /// each pixel is the mean of that many samples one `down` step apart, centred on it: parallel
    /// scan lines combined, which quietens noise and does not blur bars that run along `down`.
    public func sampled(
        origin: Vector, across: Vector, down: Vector, width outWidth: Int, height outHeight: Int,
        outside: UInt8? = nil, averaging: Int = 1
    ) -> GreyImage {
        guard outWidth > 0, outHeight > 0 else { return GreyImage(width: 0, height: 0, pixels: []) }
        guard width > 0, height > 0 else {
            return GreyImage(width: outWidth, height: outHeight, filledWith: outside ?? 0)
        }
        let taps = max(1, averaging)
        let first = -Double(taps - 1) / 2
        var out = [UInt8](repeating: 0, count: outWidth * outHeight)
        let maxX = Double(width - 1)
        let maxY = Double(height - 1)
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for row in 0..<outHeight {
                    for column in 0..<outWidth {
                        var sum = 0.0
                        for tap in 0..<taps {
                            let along = Double(row) + first + Double(tap)
                            var x = origin.x + Double(column) * across.x + along * down.x
                            var y = origin.y + Double(column) * across.y + along * down.y
                            if x < 0 || y < 0 || x > maxX || y > maxY {
                                // A point on the outer half of a border pixel is still in the picture.
                                if let outside, x < -0.5 || y < -0.5 || x > maxX + 0.5 || y > maxY + 0.5 {
                                    sum += Double(outside)
                                    continue
                                }
                                x = min(maxX, max(0, x))
                                y = min(maxY, max(0, y))
                            }
                            let left = Int(x)
                            let top = Int(y)
                            let right = min(left + 1, width - 1)
                            let bottom = min(top + 1, height - 1)
                            let fx = x - Double(left)
                            let fy = y - Double(top)
                            let upper =
                                Double(source[top * width + left]) * (1 - fx) + Double(source[top * width + right]) * fx
                            let lower =
                                Double(source[bottom * width + left]) * (1 - fx)
                                + Double(source[bottom * width + right]) * fx
                            sum += upper * (1 - fy) + lower * fy
                        }
                        target[row * outWidth + column] = UInt8(min(255, max(0, (sum / Double(taps)).rounded())))
                    }
                }
            }
        }
        return GreyImage(width: outWidth, height: outHeight, pixels: out)
    }

    /// The picture turned by `degrees` (clockwise on screen, as ImageMagick's `-rotate`), on a canvas
    /// just big enough for all of it, the corners filled with `background`.
    public func rotated(byDegrees degrees: Double, background: UInt8 = 255) -> GreyImage {
        let radians = degrees * .pi / 180
        let cosine = cos(radians)
        let sine = sin(radians)
        let outWidth = Int((Double(width) * abs(cosine) + Double(height) * abs(sine)).rounded())
        let outHeight = Int((Double(width) * abs(sine) + Double(height) * abs(cosine)).rounded())
        // Output pixel (x, y) comes from the source turned back: centre + R(-θ)·(x, y) − R(-θ)·out centre.
        let across = Vector(x: cosine, y: -sine)
        let down = Vector(x: sine, y: cosine)
        let outCentreX = Double(outWidth - 1) / 2
        let outCentreY = Double(outHeight - 1) / 2
        let origin = Vector(
            x: Double(width - 1) / 2 - outCentreX * across.x - outCentreY * down.x,
            y: Double(height - 1) / 2 - outCentreX * across.y - outCentreY * down.y)
        return sampled(
            origin: origin, across: across, down: down, width: outWidth, height: outHeight, outside: background)
    }
}

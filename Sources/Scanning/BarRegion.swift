import Foundation
import Imaging

/// A patch of parallel bars found in a picture from its gradients: where it is, which way the bars
/// run and how far they reach. The angled look of `--try-harder` cuts each one out with its bars
/// upright and hands it to ZBar, whose scan lines run along the rows and columns only.
///
/// Found as a browser reader such as Quagga2 does: the structure tensor of the picture's gradients,
/// summed over cells of ``cellSize`` pixels and smoothed over 3 × 3 cells, marks the cells where the
/// gradients are strong and nearly all point one way (a coherence near 1: bars, not text, texture or
/// noise); neighbouring cells whose bars run the same way (within ``angleTolerance``) are joined, and
/// each group big enough to be a code becomes a region.
struct BarRegion: Sendable, Equatable {
    /// The middle of the patch, in the picture's pixels.
    var centre: GreyImage.Vector
    /// One pixel's step across the bars (the direction the gradients point, either way).
    var across: GreyImage.Vector
    /// How far the patch reaches across the bars (the code's length) and along them, in pixels.
    var length: Double
    var height: Double
    /// How many cells the patch joined: a measure of its size, biggest first.
    var cells: Int
    /// The side of a cell in the picture's pixels: the patch reaches up to about one cell beyond the
    /// bars each way, since each cell's gradients are smoothed with its neighbours'.
    var cellPixels: Double

    /// Whether the patch is one straight edge rather than bars: at least ``edgeShape`` times as high
    /// as it is long. A code's bars are seldom much higher than the code is long, while the cells'
    /// smoothing makes a lone edge two or three cells long however high it is.
    var looksLikeAnEdge: Bool { height >= Self.edgeShape * length }

    /// Height over length from which a patch is taken for an edge. Turned corpus: 4 kept every code
    /// read and read 2 more at 45° (the picture's own edges had taken their places), in half the time.
    static let edgeShape = 4.0

    /// One pixel's step along the bars.
    var along: GreyImage.Vector { GreyImage.Vector(x: -across.y, y: across.x) }

    /// The angle of ``across`` from the picture's x axis, in degrees, in 0..<180.
    var degrees: Double {
        let angle = atan2(across.y, across.x) * 180 / .pi
        return angle < 0 ? angle + 180 : (angle >= 180 ? angle - 180 : angle)
    }

    /// The side of a cell, in pixels of the picture the gradients are taken from.
    static let cellSize = 8
    /// Pictures over this many pixels are halved (again) before their gradients are taken.
    static let analysisLimit = 400_000
    /// The least coherence of a cell's gradients (0: every direction, 1: one direction).
    static let minCoherence = 0.6
    /// The least mean squared gradient per pixel (central differences): about 20 grey levels of rms
    /// gradient, which paper grain and JPEG noise stay under.
    static let minEnergy = 400.0
    /// Neighbouring cells are joined when their bars run within this many degrees of each other.
    static let angleTolerance = 15.0
    /// The fewest cells a region has, and the fewest cells' length it reaches across its bars.
    static let minCells = 4
    static let minLengthInCells = 3.0

    /// The regions of `image` that look like a linear code's bars, biggest first, at most `limit`.
    static func find(in image: GreyImage, limit: Int) -> [BarRegion] {
        var analysed = image
        var scale = 1.0
        while analysed.width * analysed.height > analysisLimit {
            analysed = analysed.halved()
            scale *= 2
        }
        let grid = CellGrid(analysed)
        guard grid.columns >= 3, grid.rows >= 2 else { return [] }
        let marked = grid.markedCells()
        var regions: [BarRegion] = []
        var seen = [Bool](repeating: false, count: marked.count)
        for start in marked.indices where marked[start] != nil && !seen[start] {
            let members = grid.component(from: start, marked: marked, seen: &seen)
            if members.count >= minCells, let region = grid.region(of: members, scale: scale) {
                regions.append(region)
            }
        }
        return Array(regions.sorted { $0.cells > $1.cells }.prefix(limit))
    }
}

/// The structure tensor of a picture's gradients, summed per cell.
private struct CellGrid {
    let columns: Int
    let rows: Int
    /// Σ gx², Σ gy², Σ gx·gy over each cell.
    var xx: [Double]
    var yy: [Double]
    var xy: [Double]

    init(_ image: GreyImage) {
        let size = BarRegion.cellSize
        columns = image.width / size
        rows = image.height / size
        xx = [Double](repeating: 0, count: columns * rows)
        yy = xx
        xy = xx
        guard columns > 0, rows > 0 else { return }
        let width = image.width
        let height = image.height
        var sumXX = [Int](repeating: 0, count: columns)
        var sumYY = sumXX
        var sumXY = sumXX
        image.pixels.withUnsafeBufferPointer { pixels in
            for row in 0..<rows {
                for index in 0..<columns {
                    sumXX[index] = 0
                    sumYY[index] = 0
                    sumXY[index] = 0
                }
                for y in (row * size)..<((row + 1) * size) where y > 0 && y < height - 1 {
                    let line = y * width
                    for column in 0..<columns {
                        var cellXX = 0
                        var cellYY = 0
                        var cellXY = 0
                        for x in (column * size)..<((column + 1) * size) where x > 0 && x < width - 1 {
                            let gx = Int(pixels[line + x + 1]) - Int(pixels[line + x - 1])
                            let gy = Int(pixels[line + width + x]) - Int(pixels[line - width + x])
                            cellXX += gx * gx
                            cellYY += gy * gy
                            cellXY += gx * gy
                        }
                        sumXX[column] += cellXX
                        sumYY[column] += cellYY
                        sumXY[column] += cellXY
                    }
                }
                for column in 0..<columns {
                    xx[row * columns + column] = Double(sumXX[column])
                    yy[row * columns + column] = Double(sumYY[column])
                    xy[row * columns + column] = Double(sumXY[column])
                }
            }
        }
    }

    /// For each cell, the doubled angle of its gradients (smoothed over its 3 × 3 neighbourhood) as a
    /// unit vector when the cell looks like bars, nil otherwise.
    func markedCells() -> [(cos: Double, sin: Double)?] {
        let pixelsPerCell = Double(BarRegion.cellSize * BarRegion.cellSize)
        var marked: [(cos: Double, sin: Double)?] = Array(repeating: nil, count: columns * rows)
        for row in 0..<rows {
            for column in 0..<columns {
                var sumXX = 0.0
                var sumYY = 0.0
                var sumXY = 0.0
                var count = 0.0
                for y in max(0, row - 1)...min(rows - 1, row + 1) {
                    for x in max(0, column - 1)...min(columns - 1, column + 1) {
                        sumXX += xx[y * columns + x]
                        sumYY += yy[y * columns + x]
                        sumXY += xy[y * columns + x]
                        count += 1
                    }
                }
                let trace = sumXX + sumYY
                guard trace / (count * pixelsPerCell) >= BarRegion.minEnergy else { continue }
                let a = sumXX - sumYY
                let b = 2 * sumXY
                let strength = (a * a + b * b).squareRoot()
                guard strength >= BarRegion.minCoherence * trace else { continue }
                marked[row * columns + column] = (a / strength, b / strength)
            }
        }
        return marked
    }

    /// The marked cells joined to `start` through neighbours (the 8 around each) whose bars run the
    /// same way, each marked as seen.
    func component(from start: Int, marked: [(cos: Double, sin: Double)?], seen: inout [Bool]) -> [Int] {
        let tolerance = cos(2 * BarRegion.angleTolerance * .pi / 180)
        var members = [start]
        seen[start] = true
        var next = 0
        while next < members.count {
            let cell = members[next]
            next += 1
            guard let here = marked[cell] else { continue }
            let row = cell / columns
            let column = cell % columns
            for y in max(0, row - 1)...min(rows - 1, row + 1) {
                for x in max(0, column - 1)...min(columns - 1, column + 1) {
                    let other = y * columns + x
                    guard !seen[other], let there = marked[other],
                        here.cos * there.cos + here.sin * there.sin >= tolerance
                    else { continue }
                    seen[other] = true
                    members.append(other)
                }
            }
        }
        return members
    }

    /// The region `members` cover, in the pixels of a picture `scale` times the analysed one, if it
    /// reaches far enough across its bars to be a code.
    func region(of members: [Int], scale: Double) -> BarRegion? {
        var a = 0.0
        var b = 0.0
        for cell in members {
            a += xx[cell] - yy[cell]
            b += 2 * xy[cell]
        }
        let angle = atan2(b, a) / 2
        let across = GreyImage.Vector(x: cos(angle), y: sin(angle))
        let size = Double(BarRegion.cellSize)
        var lowU = Double.infinity
        var highU = -Double.infinity
        var lowV = Double.infinity
        var highV = -Double.infinity
        for cell in members {
            let x = (Double(cell % columns) + 0.5) * size
            let y = (Double(cell / columns) + 0.5) * size
            let u = x * across.x + y * across.y
            let v = -x * across.y + y * across.x
            lowU = min(lowU, u)
            highU = max(highU, u)
            lowV = min(lowV, v)
            highV = max(highV, v)
        }
        let length = highU - lowU + size
        guard length >= BarRegion.minLengthInCells * size else { return nil }
        let middleU = (lowU + highU) / 2
        let middleV = (lowV + highV) / 2
        let centre = GreyImage.Vector(
            x: (middleU * across.x - middleV * across.y) * scale, y: (middleU * across.y + middleV * across.x) * scale)
        return BarRegion(
            centre: centre, across: across, length: length * scale, height: (highV - lowV + size) * scale,
            cells: members.count, cellPixels: size * scale)
    }
}

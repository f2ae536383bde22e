import Foundation
import Synchronization

/// Where typed codes come from: a handheld scanner (evdev) or a keyboard wedge on standard input.
/// `nextRead()` blocks until a code, or keys refused as not a scan, arrive, and returns nil when the
/// source has ended (closed, or its input ended). Codes are already one deliberate read each: they
/// are not debounced as camera sightings are.
public protocol CodeSource: AnyObject, Sendable {
    func nextRead() throws -> KeyCodeDecoder.Read?
    /// Makes a blocked `nextRead()` return (where the source can; a wedge's read is left to the exit).
    func close()
    /// What the device calls itself (e.g. "Honeywell Imaging & Mobility 1900"), for the log.
    var name: String { get }
}

extension CodeSource {
    public var name: String { "unnamed" }
}

extension HandheldScanner: CodeSource {}

/// A keyboard-wedge scanner on standard input: one code per line, surrounding spaces and blank
/// lines dropped. A line longer than any code (``maxLineBytes``) is refused while it is read: at
/// most that much of it is ever held, and the refusal keeps its first ``shownCharacters``.
public final class StandardInputCodes: CodeSource {
    /// The longest line taken as a code, in bytes (a scanner's longest code, as for a handheld's).
    public static let maxLineBytes = 512
    /// How much of a refused line its refusal keeps (for the log and the page).
    public static let shownCharacters = 100

    private let descriptor: Int32
    private let reader = Mutex(LineReader())

    /// Reads `descriptor` (standard input unless given), which stays the caller's.
    public init(descriptor: Int32 = STDIN_FILENO) { self.descriptor = descriptor }

    public func nextRead() -> KeyCodeDecoder.Read? {
        reader.withLock { reader in
            while let line = reader.nextLine(from: descriptor, keeping: Self.maxLineBytes + 1) {
                guard line.length <= Self.maxLineBytes else {
                    let shown = String(String(decoding: line.kept, as: UTF8.self).prefix(Self.shownCharacters))
                    return .refused(
                        typed: shown,
                        reason:
                            "a line of \(line.length) bytes is longer than any code (\(Self.maxLineBytes) at most): dropped"
                    )
                }
                let code = String(decoding: line.kept, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                if !code.isEmpty { return .code(code) }
            }
            return nil
        }
    }

    public func close() {}

    public var name: String { "standard input" }

    /// Lines of a descriptor read through a fixed buffer, each kept only up to a given length.
    private struct LineReader {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var start = 0
        var end = 0
        var ended = false

        /// The next line's first `keeping` bytes and its whole length (without its line feed); nil
        /// at the end of input.
        mutating func nextLine(from descriptor: Int32, keeping limit: Int) -> (kept: [UInt8], length: Int)? {
            var kept: [UInt8] = []
            var length = 0
            var sawAny = false
            while true {
                if start == end {
                    guard !ended else { return sawAny ? (kept, length) : nil }
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else {
                        ended = true
                        continue
                    }
                    (start, end) = (0, count)
                }
                sawAny = true
                let newline = buffer[start..<end].firstIndex(of: 0x0A)
                let piece = buffer[start..<(newline ?? end)]
                if kept.count < limit { kept.append(contentsOf: piece.prefix(limit - kept.count)) }
                length += piece.count
                start = newline.map { $0 + 1 } ?? end
                if newline != nil { return (kept, length) }
            }
        }
    }
}

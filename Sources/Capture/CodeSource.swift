import Foundation

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
/// lines dropped.
public final class StandardInputCodes: CodeSource {
    public init() {}

    public func nextRead() -> KeyCodeDecoder.Read? {
        while let line = readLine() {
            let code = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if !code.isEmpty { return .code(code) }
        }
        return nil
    }

    public func close() {}

    public var name: String { "standard input" }
}

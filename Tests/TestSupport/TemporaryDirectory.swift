import Foundation

/// A fresh folder under the system's temp directory, removed when the value is deinitialised.
///
///     let folder = try TemporaryDirectory()
///     try folder.write("a.png", bytes: [...])
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(_ prefix: String = "scanpick-test") throws {
        let template = NSTemporaryDirectory() + "/\(prefix)-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: template])
        }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The path of `name` inside the folder.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` (creating intermediate folders) and returns its path.
    @discardableResult
    public func write(_ name: String, bytes: [UInt8]) throws -> String {
        let target = file(name)
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }

    /// Writes `bytes` to `name`, readable by its owner only (0600: a station refuses a config holding
    /// a token that others can read), and returns its path.
    @discardableResult
    public func writePrivate(_ name: String, bytes: [UInt8]) throws -> String {
        let target = try write(name, bytes: bytes)
        guard chmod(target, 0o600) == 0 else { throw CocoaError(.fileWriteNoPermission) }
        return target
    }

    /// Writes UTF-8 `text` to `name` and returns its path.
    @discardableResult
    public func write(_ name: String, text: String) throws -> String {
        try write(name, bytes: Array(text.utf8))
    }
}

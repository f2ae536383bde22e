import Foundation

/// A salvage file: a damaged queue's unsent actions with their keys, one JSON object per line,
/// written by a salvage and read back by an import into a fresh queue.
///
///     try SalvageFile.write(ActionQueue.salvage(path: damaged).actions, to: "salvage.jsonl")
///     try queue.importActions(SalvageFile.read("salvage.jsonl"), from: "salvage.jsonl", by: "support-jo")
public enum SalvageFile {
    /// The largest file an import reads.
    public static let maxBytes = 256 << 20

    /// Writes `actions` to a new file at `path`, never over another, readable by its owner alone
    /// (it holds the idempotency keys), and synced to disk before this returns.
    public static func write(_ actions: [SalvagedAction], to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var bytes = Data()
        for action in actions {
            bytes.append(try encoder.encode(action))
            bytes.append(0x0A)
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SalvageFileError.cannotCreate(path, String(cString: strerror(errno))) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: bytes)
        try handle.synchronize()
        try handle.close()
    }

    /// Reads the actions of the salvage file at `path` (a regular file of at most ``maxBytes``).
    public static func read(_ path: String) throws -> [SalvagedAction] {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular else { throw SalvageFileError.notAFile(path) }
        guard (attributes?[.size] as? Int ?? 0) <= maxBytes else { throw SalvageFileError.tooLarge(path) }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var actions: [SalvagedAction] = []
        for (index, line) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty {
            do {
                actions.append(try JSONDecoder().decode(SalvagedAction.self, from: Data(line)))
            } catch {
                throw QueueError.badImport(line: index + 1, "not a salvaged action (\(error))")
            }
        }
        return actions
    }
}

/// Why a salvage file could not be written or read.
public enum SalvageFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case cannotCreate(String, String)
    case notAFile(String)
    case tooLarge(String)

    public var description: String {
        switch self {
        case .cannotCreate(let path, let reason): "cannot create \(path): \(reason) (a salvage writes a new file)"
        case .notAFile(let path): "\(path) is not a readable file"
        case .tooLarge(let path): "\(path) is over \(SalvageFile.maxBytes >> 20) MiB: not a salvage file"
        }
    }
}

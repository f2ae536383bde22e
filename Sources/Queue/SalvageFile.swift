import Foundation
import Glibc

/// A salvage file: a damaged queue's unsent actions with their keys, one JSON object per line,
/// then a last line `{"salvagedActions": N}` that says how many there are (a file cut short is
/// refused, never half imported), written by a salvage and read back by an import into a fresh queue.
///
///     try SalvageFile.write(ActionQueue.salvage(path: damaged).actions, to: "salvage.jsonl")
///     try queue.importActions(SalvageFile.read("salvage.jsonl"), from: "salvage.jsonl", by: "support-jo", organisations: orgs)
public enum SalvageFile {
    /// The largest file an import reads.
    public static let maxBytes = 256 << 20

    /// The last line: how many actions the file holds.
    private struct Trailer: Codable {
        var salvagedActions: Int
    }

    /// Writes `actions` to a new file at `path`, never over another, readable by its owner alone
    /// (it holds the idempotency keys). The file is written and synced under a temporary name beside
    /// it and only then given its name, so `path` never holds half a salvage.
    public static func write(_ actions: [SalvagedAction], to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var bytes = Data()
        for action in actions {
            bytes.append(try encoder.encode(action))
            bytes.append(0x0A)
        }
        bytes.append(try encoder.encode(Trailer(salvagedActions: actions.count)))
        bytes.append(0x0A)
        guard access(path, F_OK) != 0 else { throw SalvageFileError.cannotCreate(path, "it already exists") }
        let temporary = path + ".partial-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SalvageFileError.cannotCreate(path, String(cString: strerror(errno))) }
        defer { unlink(temporary) }
        // Plain write(2) and fsync(2), not FileHandle: a full disk is then said to be full, not
        // "NSCocoaErrorDomain Code=640".
        var failure: Int32 = 0
        bytes.withUnsafeBytes { buffer in
            guard let start = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count, failure == 0 {
                let written = Glibc.write(descriptor, start + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno != EINTR {
                    failure = errno
                }
            }
        }
        if failure == 0, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == 0, errno != EINTR { failure = errno }
        guard failure == 0 else { throw SalvageFileError.cannotCreate(path, writeProblem(failure, path)) }
        // link() gives the file its name only if no other file has it (rename would replace one).
        guard link(temporary, path) == 0 else {
            throw SalvageFileError.cannotCreate(path, String(cString: strerror(errno)))
        }
        let folder = open(
            (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent,
            O_RDONLY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)  // the new name is durable too
            close(folder)
        }
    }

    /// What a failed write of a salvage to `path` means for the operator.
    private static func writeProblem(_ code: Int32, _ path: String) -> String {
        let folder =
            (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        return switch code {
        case ENOSPC: "the disk holding \(folder) is full: free some space there, or salvage to another disk"
        case EDQUOT: "this user's disk quota for \(folder) is used up: salvage to another disk"
        case EFBIG: "the file would be larger than this system lets this process write: salvage to another disk"
        default: String(cString: strerror(code))
        }
    }

    /// Reads the actions of the salvage file at `path` (a regular file of at most ``maxBytes``,
    /// whose last line counts its actions).
    public static func read(_ path: String) throws -> [SalvagedAction] {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular else { throw SalvageFileError.notAFile(path) }
        guard (attributes?[.size] as? Int ?? 0) <= maxBytes else { throw SalvageFileError.tooLarge(path) }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated().filter {
            !$0.element.isEmpty
        }
        guard let last = lines.last, let trailer = try? JSONDecoder().decode(Trailer.self, from: Data(last.element)),
            trailer.salvagedActions == lines.count - 1
        else { throw SalvageFileError.incomplete(path) }
        var actions: [SalvagedAction] = []
        for (index, line) in lines.dropLast() {
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
    /// The last line does not count the actions above it: the file was cut short or changed.
    case incomplete(String)

    public var description: String {
        switch self {
        case .cannotCreate(let path, let reason): "cannot create \(path): \(reason) (a salvage writes a new file)"
        case .notAFile(let path): "\(path) is not a readable file"
        case .tooLarge(let path): "\(path) is over \(SalvageFile.maxBytes >> 20) MiB: not a salvage file"
        case .incomplete(let path):
            "\(path) does not end with the line {\"salvagedActions\": N} counting its actions: it was cut short or changed, so nothing was imported (salvage the damaged queue again)"
        }
    }
}

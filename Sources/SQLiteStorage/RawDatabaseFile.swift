import Foundation
import Storage

/// A SQLite database file read as bytes, page by page, without SQLite (the format is
/// sqlite.org/fileformat.html): for salvage, where SQLite's own reads stop at a damaged page, or
/// answer wrongly from one. It reads the main file with the committed frames of its `-wal` laid
/// over it (the newest of each page), walks b-trees from their root pages, and decodes the cells of
/// any page into records, checking every length, offset and page number against the file: a
/// damaged page yields what it still holds and is reported, never a crash. It never writes, and
/// reads no `-shm`.
///
///     let file = try RawDatabaseFile(path: "var/station.sqlite")
///     let tree = file.walk(root: 2)  // every page and cell of one table, and whether all read
///
/// This file opens the file: its header, its freelist and the `-wal`'s committed frames.
/// `RawDatabaseFile+Pages` reads pages and walks b-trees; `RawDatabaseFile+Records` decodes cells
/// and records.
public struct RawDatabaseFile: Sendable {
    public let path: String
    /// The page size the header (or the `-wal`'s) gives, or 4096 when neither reads.
    public let pageSize: Int
    /// Bytes of a page that hold data (the page less its reserved tail).
    let usableSize: Int
    /// How many pages the database has (as its last commit in the `-wal` says, else the main file).
    public let pageCount: Int
    /// Pages on the freelist (they hold no live row).
    public private(set) var freePages: Set<Int> = []
    /// Whether the main file's header read as a database's (its first page may still be damaged).
    public let headerReads: Bool
    /// The main file's bytes.
    let main: Data
    /// The newest committed frame of each page in the `-wal`.
    let walPages: [Int: Data]

    /// The largest file read (main file or `-wal`).
    public static let maxFileBytes = 4 << 30

    /// Reads the file at `path` and its `-wal`, if there is one.
    public init(path: String) throws {
        self.path = path
        main = try Self.read(path)
        let header = Self.header(main)
        let wal = (try? Self.read(path + "-wal")).map(Self.committedFrames) ?? WAL(pageSize: nil, pages: [:], size: nil)
        let size = header.pageSize ?? wal.pageSize ?? 4096
        pageSize = size
        usableSize = size - (header.pageSize == nil ? 0 : header.reserved)
        headerReads = header.pageSize != nil
        walPages = wal.pageSize == size ? wal.pages : [:]
        pageCount = max(0, min(wal.pageSize == size ? wal.size ?? main.count / size : main.count / size, 1 << 31))
        freePages = freelist()
    }

    private static func read(_ path: String) throws -> Data {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw RawDatabaseFileError.notAFile(path)
        }
        guard (attributes[.size] as? Int ?? 0) <= maxFileBytes else { throw RawDatabaseFileError.tooLarge(path) }
        return try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
    }

    /// The page size and reserved bytes of a main file's header, when it reads as SQLite's.
    private static func header(_ main: Data) -> (pageSize: Int?, reserved: Int) {
        guard main.count >= 100, main.prefix(16) == Data("SQLite format 3\0".utf8) else { return (nil, 0) }
        let bytes = [UInt8](main.prefix(100))
        let raw = Int(u16(bytes, 16))
        let size = raw == 1 ? 65536 : raw
        let reserved = Int(bytes[20])
        guard size >= 512, size <= 65536, size & (size - 1) == 0, reserved < size - 480 else { return (nil, 0) }
        return (size, reserved)
    }

    /// Every page on the freelist (trunk pages and the leaves they list), as far as it reads.
    private func freelist() -> Set<Int> {
        guard headerReads, let first = page(1) else { return [] }
        let header = [UInt8](first.prefix(100))
        var trunk = Int(Self.u32(header, 32))
        var free: Set<Int> = []
        while trunk >= 1, trunk <= pageCount, free.insert(trunk).inserted, let page = page(trunk) {
            let bytes = [UInt8](page)
            let count = Int(Self.u32(bytes, 4))
            guard count >= 0, 8 + 4 * count <= usableSize else { break }
            for index in 0..<count {
                let leaf = Int(Self.u32(bytes, 8 + 4 * index))
                if leaf >= 1, leaf <= pageCount { free.insert(leaf) }
            }
            trunk = Int(Self.u32(bytes, 0))
        }
        return free
    }

    private struct WAL {
        var pageSize: Int? = nil
        var pages: [Int: Data]
        /// The database's size in pages at the last commit.
        var size: Int? = nil
    }

    /// The frames of a `-wal` up to its last valid commit: salts that match its header's and a
    /// checksum chain that holds (a frame past them was never committed, or is of an older round).
    private static func committedFrames(_ wal: Data) -> WAL {
        let bytes = [UInt8](wal)
        let magic = u32(bytes, 0)
        guard bytes.count >= 32, magic == 0x377F_0682 || magic == 0x377F_0683 else { return WAL(pages: [:]) }
        let bigEndian = magic & 1 == 1
        let size = Int(u32(bytes, 8))
        guard size >= 512, size <= 65536, size & (size - 1) == 0 else { return WAL(pages: [:]) }
        let salts = (u32(bytes, 16), u32(bytes, 20))
        var sum = checksum(bytes, 0..<24, (0, 0), bigEndian: bigEndian)
        guard sum == (u32(bytes, 24), u32(bytes, 28)) else { return WAL(pages: [:]) }
        var committed: [Int: Data] = [:]
        var pending: [Int: Data] = [:]
        var databaseSize: Int?
        var at = 32
        while at + 24 + size <= bytes.count {
            guard (u32(bytes, at + 8), u32(bytes, at + 12)) == salts else { break }
            sum = checksum(bytes, at..<at + 8, sum, bigEndian: bigEndian)
            sum = checksum(bytes, at + 24..<at + 24 + size, sum, bigEndian: bigEndian)
            guard sum == (u32(bytes, at + 16), u32(bytes, at + 20)) else { break }
            let number = Int(u32(bytes, at))
            guard number >= 1 else { break }
            pending[number] = wal.subdata(in: wal.startIndex + at + 24..<wal.startIndex + at + 24 + size)
            let commit = Int(u32(bytes, at + 4))
            if commit > 0 {
                committed.merge(pending) { _, newer in newer }
                pending = [:]
                databaseSize = commit
            }
            at += 24 + size
        }
        return WAL(pageSize: size, pages: committed, size: databaseSize)
    }

    /// The `-wal`'s running checksum over `range` (a multiple of 8 bytes), from `start`.
    private static func checksum(
        _ bytes: [UInt8], _ range: Range<Int>, _ start: (UInt32, UInt32), bigEndian: Bool
    ) -> (UInt32, UInt32) {
        var (s0, s1) = start
        var at = range.lowerBound
        while at + 8 <= range.upperBound {
            let x0 = bigEndian ? u32(bytes, at) : u32(bytes, at).byteSwapped
            let x1 = bigEndian ? u32(bytes, at + 4) : u32(bytes, at + 4).byteSwapped
            s0 = s0 &+ x0 &+ s1
            s1 = s1 &+ x1 &+ s0
            at += 8
        }
        return (s0, s1)
    }
}

/// Why a file could not be read as a database at all.
public enum RawDatabaseFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case notAFile(String)
    case tooLarge(String)

    public var description: String {
        switch self {
        case .notAFile(let path): "\(path) is not a regular file"
        case .tooLarge(let path): "\(path) is over \(RawDatabaseFile.maxFileBytes >> 30) GiB"
        }
    }
}

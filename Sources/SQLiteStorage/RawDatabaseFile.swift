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
    private let main: Data
    /// The newest committed frame of each page in the `-wal`.
    private let walPages: [Int: Data]

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

    // MARK: Pages

    /// The bytes of page `number` (1-based), or nil when the file has no such page.
    public func page(_ number: Int) -> Data? {
        guard number >= 1, number <= pageCount else { return nil }
        if let page = walPages[number] { return page }
        let start = (number - 1) * pageSize
        guard start + pageSize <= main.count else { return nil }
        return main.subdata(in: start..<start + pageSize)
    }

    /// What a b-tree page is, by its first byte.
    public enum PageKind: Sendable, Equatable {
        case tableInterior, tableLeaf, indexInterior, indexLeaf
    }

    /// The b-tree kind of page `number`, or nil when it is not a b-tree page (an overflow page, a
    /// freelist page, or damage).
    public func kind(ofPage number: Int) -> PageKind? {
        guard let page = page(number) else { return nil }
        switch page[page.startIndex + (number == 1 ? 100 : 0)] {
        case 0x05: return .tableInterior
        case 0x0D: return .tableLeaf
        case 0x02: return .indexInterior
        case 0x0A: return .indexLeaf
        default: return nil
        }
    }

    /// One cell of a b-tree page: a table row (its rowid and record), an index entry (its record),
    /// or a pointer to a child page (interior pages; a table's carries a rowid, an index's a record).
    public struct Cell: Sendable {
        public var rowid: Int64?
        /// The record's values, or nil for a table interior cell.
        public var values: [DatabaseValue]?
        public var child: Int?
    }

    /// The cells of page `number` that decode, and how many did not (damage).
    public func cells(onPage number: Int) -> (cells: [Cell], undecodable: Int) {
        guard let kind = kind(ofPage: number), let page = page(number) else { return ([], 0) }
        let bytes = [UInt8](page)
        let headerStart = number == 1 ? 100 : 0
        let interior = kind == .tableInterior || kind == .indexInterior
        let pointers = headerStart + (interior ? 12 : 8)
        let count = Int(Self.u16(bytes, headerStart + 3))
        var cells: [Cell] = []
        var undecodable = 0
        for index in 0..<count {
            let at = pointers + 2 * index
            guard at + 2 <= usableSize else {
                undecodable += count - index
                break
            }
            let offset = Int(Self.u16(bytes, at))
            guard offset >= pointers, offset < usableSize, let cell = self.cell(bytes, at: offset, kind: kind) else {
                undecodable += 1
                continue
            }
            cells.append(cell)
        }
        return (cells, undecodable)
    }

    /// The page an interior page's right-most pointer names, or nil.
    func rightChild(ofPage number: Int) -> Int? {
        guard let kind = kind(ofPage: number), kind == .tableInterior || kind == .indexInterior,
            let page = page(number)
        else { return nil }
        return Int(Self.u32([UInt8](page), (number == 1 ? 100 : 0) + 8))
    }

    /// A b-tree read from its root: the pages it reaches, the cells of its leaves (and, for an
    /// index, of its interior pages, which hold entries too), and whether every page on the way read
    /// as the b-tree's own with every cell decoded.
    public struct Tree: Sendable {
        public var pages: Set<Int> = []
        public var cells: [Cell] = []
        public var complete = true
    }

    /// Walks the b-tree whose root is page `root`, table or index (as its root says).
    public func walk(root: Int) -> Tree {
        var tree = Tree()
        guard let rootKind = kind(ofPage: root) else {
            tree.complete = false
            return tree
        }
        let isTable = rootKind == .tableInterior || rootKind == .tableLeaf
        var waiting = [root]
        while let number = waiting.popLast() {
            guard number >= 1, number <= pageCount, !tree.pages.contains(number), tree.pages.count < pageCount,
                let kind = kind(ofPage: number),
                isTable
                    ? (kind == .tableInterior || kind == .tableLeaf) : (kind == .indexInterior || kind == .indexLeaf)
            else {
                tree.complete = false
                continue
            }
            tree.pages.insert(number)
            let (cells, undecodable) = cells(onPage: number)
            if undecodable > 0 { tree.complete = false }
            for cell in cells {
                if let child = cell.child { waiting.append(child) }
                if cell.values != nil { tree.cells.append(cell) }
            }
            if let right = rightChild(ofPage: number) { waiting.append(right) }
        }
        return tree
    }

    // MARK: Cells and records

    private func cell(_ page: [UInt8], at offset: Int, kind: PageKind) -> Cell? {
        var at = offset
        var child: Int?
        if kind == .tableInterior || kind == .indexInterior {
            guard at + 4 <= usableSize else { return nil }
            child = Int(Self.u32(page, at))
            at += 4
        }
        if kind == .tableInterior {
            guard let (rowid, _) = Self.varint(page, at, limit: usableSize) else { return nil }
            return Cell(rowid: rowid, values: nil, child: child)
        }
        guard let (size, sizeLength) = Self.varint(page, at, limit: usableSize), size >= 0, size <= 1 << 30 else {
            return nil
        }
        at += sizeLength
        var rowid: Int64?
        if kind == .tableLeaf {
            guard let (id, idLength) = Self.varint(page, at, limit: usableSize) else { return nil }
            rowid = id
            at += idLength
        }
        guard let payload = self.payload(page, at: at, size: Int(size), table: kind == .tableLeaf),
            let values = Self.record(payload)
        else { return nil }
        return Cell(rowid: rowid, values: values, child: child)
    }

    /// A cell's payload: what the page holds of it, then its overflow pages.
    private func payload(_ page: [UInt8], at start: Int, size: Int, table: Bool) -> [UInt8]? {
        let u = usableSize
        let most = table ? u - 35 : (u - 12) * 64 / 255 - 23
        let least = (u - 12) * 32 / 255 - 23
        var local = size
        if size > most {
            let k = least + (size - least) % (u - 4)
            local = k <= most ? k : least
        }
        guard local >= 0, start + local <= u else { return nil }
        var bytes = Array(page[start..<start + local])
        guard size > local else { return bytes }
        guard start + local + 4 <= u else { return nil }
        var next = Int(Self.u32(page, start + local))
        var seen: Set<Int> = []
        while bytes.count < size {
            guard next >= 1, next <= pageCount, seen.insert(next).inserted, let overflow = self.page(next) else {
                return nil
            }
            let content = [UInt8](overflow)
            let take = min(size - bytes.count, u - 4)
            bytes += content[4..<4 + take]
            next = Int(Self.u32(content, 0))
        }
        return bytes
    }

    /// A record's values (header of serial types, then the body), or nil unless it decodes whole:
    /// header and body must fill the payload exactly, and text must be UTF-8.
    static func record(_ payload: [UInt8]) -> [DatabaseValue]? {
        guard let (headerSize, headerLength) = varint(payload, 0, limit: payload.count), headerSize >= 1,
            headerSize <= payload.count
        else { return nil }
        var types: [Int64] = []
        var at = headerLength
        while at < Int(headerSize) {
            guard let (type, length) = varint(payload, at, limit: Int(headerSize)), type >= 0, type != 10, type != 11
            else { return nil }
            types.append(type)
            at += length
        }
        var body = Int(headerSize)
        var values: [DatabaseValue] = []
        for type in types {
            let length: Int
            switch type {
            case 0, 8, 9: length = 0
            case 1, 2, 3, 4: length = Int(type)
            case 5: length = 6
            case 6, 7: length = 8
            default: length = Int((type - 12) / 2)
            }
            guard length >= 0, body + length <= payload.count else { return nil }
            let field = payload[body..<body + length]
            switch type {
            case 0: values.append(.null)
            case 8: values.append(.integer(0))
            case 9: values.append(.integer(1))
            case 1...6: values.append(.integer(signed(field)))
            case 7: values.append(.real(Double(bitPattern: UInt64(bitPattern: signed(field)))))
            default:
                if type % 2 == 0 {
                    values.append(.blob(Array(field)))
                } else {
                    guard let text = String(validating: field, as: UTF8.self) else { return nil }
                    values.append(.text(text))
                }
            }
            body += length
        }
        guard body == payload.count else { return nil }
        return values
    }

    /// A big-endian two's-complement integer of 1 to 8 bytes.
    private static func signed(_ bytes: ArraySlice<UInt8>) -> Int64 {
        var value: UInt64 = bytes.first.map { $0 & 0x80 != 0 ? UInt64.max : 0 } ?? 0
        for byte in bytes { value = value << 8 | UInt64(byte) }
        return Int64(bitPattern: value)
    }

    /// SQLite's variable-length integer at `at` (1 to 9 bytes, none past `limit`), and its length.
    static func varint(_ bytes: [UInt8], _ at: Int, limit: Int) -> (Int64, Int)? {
        var value: UInt64 = 0
        for index in 0..<9 {
            guard at + index < min(limit, bytes.count), at + index >= 0 else { return nil }
            let byte = bytes[at + index]
            if index == 8 { return (Int64(bitPattern: value << 8 | UInt64(byte)), 9) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return (Int64(bitPattern: value), index + 1) }
        }
        return nil
    }

    static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 {
        guard at >= 0, at + 2 <= bytes.count else { return 0 }
        return UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
    }

    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at >= 0, at + 4 <= bytes.count else { return 0 }
        return bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    // MARK: The header, the freelist and the -wal

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

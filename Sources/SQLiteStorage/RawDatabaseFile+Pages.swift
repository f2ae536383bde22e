import Foundation
import Storage

/// Pages and b-trees: a page's bytes and kind, the cells on it, and a walk of a whole tree.
extension RawDatabaseFile {
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
}

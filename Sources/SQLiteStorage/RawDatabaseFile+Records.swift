import Foundation
import Storage

/// Cells and records: a cell's payload (with its overflow pages), and a record's values, every
/// length and offset checked against the page.
extension RawDatabaseFile {
    func cell(_ page: [UInt8], at offset: Int, kind: PageKind) -> Cell? {
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
}

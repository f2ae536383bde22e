/// Rewrites SQLite-style placeholders (`?`, `?N`) as PostgreSQL's (`$N`), leaving string literals
/// and quoted identifiers alone. A bare `?` takes one more than the largest number used so
/// far, which is SQLite's rule, so a statement binds the same arguments on both engines.
enum Placeholders {
    static func postgres(_ sql: String) -> String {
        var output = ""
        output.reserveCapacity(sql.utf8.count + 8)
        var largest = 0
        var characters = sql.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = characters.next()
        var quote: Unicode.Scalar?
        while let character = pending {
            pending = characters.next()
            if let open = quote {
                output.unicodeScalars.append(character)
                if character == open { quote = nil }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                output.unicodeScalars.append(character)
            case "?":
                var digits = ""
                while let next = pending, ("0"..."9").contains(next) {
                    digits.unicodeScalars.append(next)
                    pending = characters.next()
                }
                let number = Int(digits) ?? (largest + 1)
                largest = max(largest, number)
                output += "$\(number)"
            default:
                output.unicodeScalars.append(character)
            }
        }
        return output
    }
}

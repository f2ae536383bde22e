/// Splits RFC 4180 CSV text into records: commas between fields, double quotes around fields that
/// hold commas, quotes (doubled) or line breaks, and LF or CRLF between records.
enum CSVReader {
    struct Record {
        /// 1-based line on which the record starts, for error messages.
        var line: Int
        var fields: [String]
    }

    enum Failure: Error, Equatable {
        case unterminatedQuote(line: Int)
    }

    static func records(in text: String) throws(Failure) -> [Record] {
        var records: [Record] = []
        var fields: [String] = []
        var field = ""
        var inQuotes = false
        var line = 1
        var recordLine = 1
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil

        func next() -> Unicode.Scalar? {
            if let scalar = pending {
                pending = nil
                return scalar
            }
            return scalars.next()
        }

        while let scalar = next() {
            if inQuotes {
                if scalar == "\"" {
                    let following = next()
                    if following == "\"" {
                        field.unicodeScalars.append("\"")
                    } else {
                        inQuotes = false
                        pending = following
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where field.isEmpty:
                inQuotes = true
            case ",":
                fields.append(field)
                field = ""
            case "\r":
                break
            case "\n":
                fields.append(field)
                records.append(Record(line: recordLine, fields: fields))
                fields = []
                field = ""
                line += 1
                recordLine = line
            default:
                field.unicodeScalars.append(scalar)
            }
        }
        if inQuotes { throw .unterminatedQuote(line: recordLine) }
        if !field.isEmpty || !fields.isEmpty {
            fields.append(field)
            records.append(Record(line: recordLine, fields: fields))
        }
        return records
    }
}

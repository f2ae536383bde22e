import Foundation

/// A configured pattern that tells a special code from an item's: `batchLabelPattern` (a batch
/// label: scanning it opens that batch) or `workerBadgePattern` (a badge: scanning it signs its
/// worker in). A code is one when the regular expression (ICU syntax, `^BATCH-`) finds a match in
/// it; the value is the pattern's first capture group when it has one (`^BATCH-(.+)$` takes the
/// batch id from `BATCH-batch-7`), else the whole code.
///
///     let pattern = try LabelPattern("^W-([0-9]{3,6})$")
///     pattern.value(in: "W-0042")  // "0042"
public struct LabelPattern: @unchecked Sendable, Equatable, CustomStringConvertible {
    // @unchecked: NSRegularExpression is immutable once made, and safe to use from any thread.
    public let source: String
    private let regex: NSRegularExpression

    /// The longest pattern a config may give.
    public static let maxLength = 200

    public init(_ source: String) throws(LabelPatternError) {
        guard (1...Self.maxLength).contains(source.utf8.count) else {
            throw LabelPatternError(problem: "must be 1 to \(Self.maxLength) characters")
        }
        do {
            regex = try NSRegularExpression(pattern: source)
        } catch {
            // Foundation says only "The value is invalid"; Swift's own parser says what and where.
            let reason = Self.regexProblem(source)
            throw LabelPatternError(problem: "is not a regular expression" + (reason.map { " (\($0))" } ?? ""))
        }
        self.source = source
    }

    /// What Swift's regular expression parser finds wrong with `source`, if anything.
    private static func regexProblem(_ source: String) -> String? {
        do {
            _ = try Regex(source)
            return nil
        } catch {
            return String(describing: error)
        }
    }

    /// The label's value when `code` is such a label, else nil.
    public func value(in code: String) -> String? {
        let whole = NSRange(code.startIndex..., in: code)
        guard let match = regex.firstMatch(in: code, range: whole) else { return nil }
        guard match.numberOfRanges > 1 else { return code }
        let group = match.range(at: 1)
        guard group.location != NSNotFound, let range = Range(group, in: code) else { return code }
        return String(code[range])
    }

    public var description: String { source }

    public static func == (lhs: LabelPattern, rhs: LabelPattern) -> Bool { lhs.source == rhs.source }
}

/// Why a configured pattern cannot be used.
public struct LabelPatternError: Error, Sendable, CustomStringConvertible {
    public var problem: String
    public var description: String { problem }
}

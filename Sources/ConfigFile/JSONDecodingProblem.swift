import Foundation

/// A `JSONDecoder` failure in words a client can act on, naming the field as the client wrote it
/// (`units[0].qty`): Foundation's own descriptions name Swift types and coding keys. Shared by the
/// API server and the station's page, so one body gets one message wherever it is refused.
///
///     catch let error as DecodingError { message = JSONDecodingProblem.describe(error, body: body) }
public enum JSONDecodingProblem {
    /// What is wrong with `body`, which `error` refused.
    public static func describe(_ error: DecodingError, body: [UInt8]) -> String {
        func path(_ context: DecodingError.Context, _ key: CodingKey? = nil) -> String {
            let keys = context.codingPath + (key.map { [$0] } ?? [])
            return shortened(
                keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(
                    in: CharacterSet(charactersIn: ".")))
        }
        switch error {
        case .typeMismatch(_, let context) where context.codingPath.isEmpty,
            .valueNotFound(_, let context) where context.codingPath.isEmpty:
            return "the request body must be a JSON object"
        case .keyNotFound(let key, let context): return "missing field '\(path(context, key))'"
        case .typeMismatch(let type, let context): return "field '\(path(context))' must be \(describe(type))"
        case .valueNotFound(let type, let context):
            return "field '\(path(context))' must be \(describe(type)), not null"
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // Foundation says only "not valid JSON", also of valid JSON with a number no field holds.
            if let problem = JSONSyntax.problem(in: body) { return "the request body: \(problem)" }
            let fields = JSONSyntax.numbersNotInts(in: body, atMost: 3).map { "'\(shortened($0))'" }
            if fields.count == 1 {
                return "field \(fields[0]) must be a whole number (this one has a fraction or is too large)"
            } else if !fields.isEmpty {
                return "a whole-number field has a fraction or is too large: one of \(fields.joined(separator: ", "))"
            }
            return "the request body is not valid JSON"
        case .dataCorrupted(let context):
            return "field '\(path(context))' is invalid"
        @unknown default: return "the request body does not match the expected shape"
        }
    }

    /// A field's path as the client wrote it, cut to a length a message can carry.
    private static func shortened(_ path: String) -> String {
        path.count <= 100 ? path : path.prefix(100) + "…"
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "a whole number"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [Any].Type: "a list"
        case is [String: Any].Type: "an object"
        default: "of another type"
        }
    }
}

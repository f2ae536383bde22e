import Foundation

extension HTTPRequest {
    /// The values of cookie `name` in the request's `Cookie` header, in the order sent (usually one;
    /// several when another site of the same domain set one too: the caller decides, rather than
    /// this guessing which is meant). Names compare exactly; values are as sent, quotes removed.
    ///
    ///     guard let session = request.cookies(named: "scanpick_fleet").first else { … }
    public func cookies(named name: String) -> [String] {
        guard let header = header("cookie") else { return [] }
        return header.split(separator: ";").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { return nil }
            var value = parts[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            return value
        }
    }
}

import Synchronization
import Wire

/// Rules for idempotency keys: 1–255 visible ASCII characters, from the body's `idempotencyKey` or
/// the `Idempotency-Key` header (which must agree when both are sent).
enum IdempotencyKey {
    static func resolve(body: String?, header: String?) throws(APIError) -> String {
        if let body, let header, body != header {
            throw APIError.badRequest("the Idempotency-Key header and the body's idempotencyKey differ")
        }
        guard let key = body ?? header else {
            throw APIError.badRequest("idempotencyKey is required (in the body, or as the Idempotency-Key header)")
        }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw APIError.invalid(
                FieldError(field: "idempotencyKey", problem: "must be 1–255 visible ASCII characters"))
        }
        return key
    }
}

/// Keys whose first request this process is still working on: a second request with one gets 409
/// at once instead of waiting. (The stored result and the transaction are what make the effect
/// happen once; this only answers "still running" honestly.)
final class InFlightKeys: Sendable {
    private let keys = Mutex<Set<String>>([])

    /// Claims `key` for `org`; false if it is already being processed.
    func claim(org: String, key: String) -> Bool {
        keys.withLock { $0.insert(org + "\u{0}" + key).inserted }
    }

    func release(org: String, key: String) {
        _ = keys.withLock { $0.remove(org + "\u{0}" + key) }
    }
}

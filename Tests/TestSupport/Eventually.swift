import Foundation

/// Waits up to `seconds` for `condition` (polled every 20 ms), for events seen from outside: another
/// process, a log written in batches, a background loop. Returns whether it came true, as soon as it
/// does; the default bound is wide because the whole suite on two cores can hold a test's tasks and
/// processes up for over a minute (seen: trivial tests finishing 30–110 s after they started).
///
///     #expect(try await eventually { try queue.counts().sent == 1 })
public func eventually(_ seconds: Double = 120, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

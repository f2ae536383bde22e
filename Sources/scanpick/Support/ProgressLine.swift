import Foundation

/// A single self-overwriting `decoding 120/737` line on standard error, redrawn at most ten times a
/// second, for long batches on a terminal. Disabled, it does nothing.
struct ProgressLine {
    let total: Int
    let enabled: Bool
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private var visible = false

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
    }

    mutating func update(_ done: Int) {
        guard enabled, ContinuousClock.now - lastDraw >= .milliseconds(100) || done == total else { return }
        lastDraw = .now
        visible = true
        StandardStream.error.write("\r\u{1B}[Kdecoding \(done)/\(total) images")
    }

    mutating func clear() {
        guard visible else { return }
        visible = false
        StandardStream.error.write("\r\u{1B}[K")
    }
}

import Dispatch
import Lifecycle
import Logging

/// The first of `scanpick serve`'s services to stop: asked to stop, the server answers
/// `GET /health/ready` 503 (`server_stopping`) for `seconds` (the config's `drainSeconds`) while it
/// still serves every request, so a load balancer that checks it (HAProxy every 500 ms, out after
/// two failures) sends it nothing new by the time the listener closes; then the others stop.
struct ReadinessDrain: Service {
    let name = "readiness-drain"
    let api: ScanPickAPI
    let seconds: Double
    let logger: Logger

    func run() async throws {
        await waitUntilCancelled()
        guard seconds > 0 else { return }
        api.beginStopping()
        logger.notice("draining", ["milliseconds": .milliseconds(seconds * 1000)])
        // The task is cancelled, so Task.sleep would return at once: a wait that cancellation leaves alone.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { done.resume() }
        }
    }
}

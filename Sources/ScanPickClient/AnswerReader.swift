import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session delegate of ``ScanPickHTTPClient``: it refuses every redirect (the 3xx itself is the
/// answer), and reads the answers of the requests handed to ``fetch(_:limit:)`` up to a limit,
/// cancelling one that goes past it, so a server cannot make the station hold an answer of any size
/// (URLSession's own `data(for:)` keeps a whole answer in memory, however large).
final class AnswerReader: NSObject, URLSessionDataDelegate, Sendable {
    /// An answer being read: what came so far, and who waits for it.
    private struct Reading {
        var limit: Int
        var body = Data()
        var tooLarge = false
        let continuation: CheckedContinuation<(Data, URLResponse), any Error>
    }

    /// The answer was cut off: the server sent (or announced) more than `limit` bytes.
    struct TooLarge: Error {
        var limit: Int
    }

    private let readings = Mutex<[Int: Reading]>([:])

    /// Sends `request` on `session` (whose delegate this is) and returns the answer, or throws
    /// ``TooLarge`` once its body passes `limit` bytes (the request is cancelled then).
    func fetch(_ request: URLRequest, on session: URLSession, limit: Int) async throws -> (Data, URLResponse) {
        let task = session.dataTask(with: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                readings.withLock { $0[task.taskIdentifier] = Reading(limit: limit, continuation: continuation) }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overLimit = readings.withLock { readings -> Bool in
            guard var reading = readings[dataTask.taskIdentifier], !reading.tooLarge else { return false }
            let announced = dataTask.response?.expectedContentLength ?? -1
            if announced > reading.limit || reading.body.count + data.count > reading.limit {
                reading.tooLarge = true
                reading.body = Data()
            } else {
                reading.body.append(data)
            }
            readings[dataTask.taskIdentifier] = reading
            return reading.tooLarge
        }
        if overLimit { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let reading = readings.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if reading.tooLarge {
            reading.continuation.resume(throwing: TooLarge(limit: reading.limit))
        } else if let error {
            reading.continuation.resume(throwing: error)
        } else if let response = task.response {
            reading.continuation.resume(returning: (reading.body, response))
        } else {
            reading.continuation.resume(throwing: URLError(.badServerResponse))
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

import Synchronization

/// The streamed responses being sent. Once the server stops, each is ended and none is admitted.
final class OpenStreams: Sendable {
    private let state = Mutex<(stopping: Bool, open: [ObjectIdentifier: HTTPStream])>((false, [:]))

    /// Counts `stream` in; false once the server is stopping.
    func admit(_ stream: HTTPStream) -> Bool {
        state.withLock { state in
            guard !state.stopping else { return false }
            state.open[ObjectIdentifier(stream)] = stream
            return true
        }
    }

    func remove(_ stream: HTTPStream) {
        _ = state.withLock { $0.open.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    /// How many streams are being sent.
    var count: Int { state.withLock { $0.open.count } }

    /// Ends every stream and admits no more.
    func endAll() {
        let open = state.withLock { state in
            state.stopping = true
            return Array(state.open.values)
        }
        for stream in open { stream.end() }
    }
}

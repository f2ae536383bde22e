internal import CMicroHTTPD
import Synchronization

/// A response body written over time, for as long as the client stays (Server-Sent Events, a
/// multipart MJPEG feed): the answer's head goes out at once, then whatever is written, chunked.
/// No thread waits for the client: a polling thread sends what is buffered when the socket can
/// take it, and while nothing is buffered the connection is suspended (libmicrohttpd's own pause),
/// woken by the next write.
///
/// What one client may hold is bounded: bytes written but not yet sent are capped at
/// `maxBufferedBytes`, and a write past that cuts the stream (a client that reads too slowly is let
/// go; an event stream's client reconnects and gets a fresh snapshot). A client that reads nothing
/// at all is closed by the server's idle timeout once its socket is full.
///
///     let stream = HTTPStream(maxBufferedBytes: 256 << 10) { print("the client is gone") }
///     stream.write(Array("data: hello\n\n".utf8))
///     return .stream(200, headers: [("Content-Type", "text/event-stream")], stream)
public final class HTTPStream: Sendable {
    /// The most bytes written and not yet sent this stream keeps.
    public let maxBufferedBytes: Int
    private let state: Mutex<State>

    private struct State {
        var buffer: [UInt8] = []
        /// How much of `buffer` has gone to libmicrohttpd.
        var sent = 0
        /// Ends once `buffer` is sent.
        var ending = false
        /// Cut: the client is dropped without the rest.
        var cut = false
        /// libmicrohttpd is done with the stream (sent, cut, or the client went away).
        var finished = false
        var connection: Connection?
        /// The connection is suspended waiting for bytes (only then may it be resumed).
        var suspended = false
        var onFinish: (@Sendable () -> Void)?
    }

    /// A libmicrohttpd connection: suspended and resumed from any thread (libmicrohttpd allows it),
    /// only while the stream knows it is alive, hence `@unchecked Sendable`.
    struct Connection: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// `onFinish` is called once, on a server thread, when the server is done with the stream: it
    /// ended, was cut, the client went away, or the server stopped.
    public init(maxBufferedBytes: Int = 256 << 10, onFinish: (@Sendable () -> Void)? = nil) {
        self.maxBufferedBytes = max(1, maxBufferedBytes)
        state = Mutex(State(onFinish: onFinish))
    }

    /// Queues `bytes` for the client; false (and nothing queued) when the stream is finished, ending
    /// or cut, or when they would take it past ``maxBufferedBytes``, which cuts it.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard !state.finished, !state.ending, !state.cut else { return false }
            if state.buffer.count - state.sent + bytes.count > maxBufferedBytes {
                state.cut = true
                state.buffer = []
                state.sent = 0
                Self.wake(&state)
                return false
            }
            Self.compact(&state)
            state.buffer.append(contentsOf: bytes)
            Self.wake(&state)
            return true
        }
    }

    /// Queues `bytes` only when everything written before has gone to the client (a feed of frames,
    /// where a slow client should get the newest one, not all of them); false otherwise.
    @discardableResult
    public func writeIfDrained(_ bytes: [UInt8]) -> Bool {
        guard bufferedBytes == 0 else { return false }
        return write(bytes)
    }

    /// Bytes written and not yet handed to the connection.
    public var bufferedBytes: Int { state.withLock { $0.buffer.count - $0.sent } }

    /// Whether the server is done with the stream (or it was cut).
    public var isFinished: Bool { state.withLock { $0.finished || $0.cut } }

    /// Ends the stream once what was written has been sent (the response ends cleanly).
    public func end() {
        state.withLock { state in
            state.ending = true
            Self.wake(&state)
        }
    }

    /// Drops the client now, without the rest of what was written.
    public func cut() {
        state.withLock { state in
            state.cut = true
            Self.wake(&state)
        }
    }

    /// The stream is the answer on `connection` (set before libmicrohttpd first reads it).
    func attach(_ connection: OpaquePointer) {
        state.withLock { $0.connection = Connection(pointer: connection) }
    }

    /// libmicrohttpd asks for up to `capacity` bytes (on a polling thread): the count given, 0 after
    /// suspending the connection until the next write, or its end-of-stream or error markers.
    func read(into destination: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        state.withLock { state in
            if state.cut { return Self.endWithError }
            let available = state.buffer.count - state.sent
            if available > 0 {
                let count = min(available, capacity)
                state.buffer.withUnsafeBufferPointer { buffer in
                    UnsafeMutableRawPointer(destination).copyMemory(
                        from: buffer.baseAddress! + state.sent, byteCount: count)
                }
                state.sent += count
                if state.sent == state.buffer.count {
                    state.buffer.removeAll(keepingCapacity: state.buffer.capacity <= 64 << 10)
                    state.sent = 0
                }
                return count
            }
            if state.ending { return Self.endOfStream }
            guard let connection = state.connection else { return Self.endWithError }
            // Nothing to send: pause this connection (no polling thread spins on it) until a write.
            MHD_suspend_connection(connection.pointer)
            state.suspended = true
            return 0
        }
    }

    /// libmicrohttpd is done with the stream: it never touches the connection again.
    func finish() {
        let onFinish = state.withLock { state -> (@Sendable () -> Void)? in
            state.finished = true
            state.connection = nil
            state.suspended = false
            state.buffer = []
            state.sent = 0
            defer { state.onFinish = nil }
            return state.onFinish
        }
        onFinish?()
    }

    /// Resumes a connection suspended waiting for bytes (under the lock, so it is resumed only after
    /// it was suspended and never after libmicrohttpd let it go).
    private static func wake(_ state: inout State) {
        guard state.suspended, let connection = state.connection else { return }
        state.suspended = false
        MHD_resume_connection(connection.pointer)
    }

    /// Drops the part of the buffer already sent when it is most of it.
    private static func compact(_ state: inout State) {
        guard state.sent > 0, state.sent >= state.buffer.count / 2 else { return }
        state.buffer.removeFirst(state.sent)
        state.sent = 0
    }

    static let endOfStream = -1  // MHD_CONTENT_READER_END_OF_STREAM
    static let endWithError = -2  // MHD_CONTENT_READER_END_WITH_ERROR
}

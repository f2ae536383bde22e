internal import CMicroHTTPD
import Foundation

/// An HTTP/1.1 server on libmicrohttpd: one thread per connection (handlers may block on a
/// database), keep-alive, bodies gathered whole and refused with 413 past `maxBodyBytes`.
///
///     let server = try HTTPServer(listen: ListenAddress(host: "127.0.0.1", port: 0)) { request in
///         HTTPResponse(status: 200, body: Array("ok".utf8))
///     }
///     print(server.address)  // the bound port, when 0 was asked for
///     server.stop()
public final class HTTPServer: Sendable {
    /// Turns a request into a response; called on the connection's thread, possibly concurrently.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The address actually bound (port 0 resolved).
    public let address: ListenAddress
    private let daemon: Daemon

    public init(
        listen: ListenAddress, maxBodyBytes: Int = 1 << 20, connectionLimit: UInt32 = 512, handler: @escaping Handler
    )
        throws(HTTPServerError)
    {
        guard let socketAddress = listen.socketAddress() else {
            throw .cannotListen(listen, reason: "not an IP address")
        }
        let box = HandlerBox(handler: handler, maxBodyBytes: maxBodyBytes)
        let context = Unmanaged.passRetained(box).toOpaque()
        let started = socketAddress.withUnsafeBytes { raw in
            scanpick_mhd_start(
                raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), accessHandler, context, requestCompleted,
                context, connectionLimit, 60)
        }
        guard let started else {
            let reason = errno == EADDRINUSE ? "the address is already in use" : String(cString: strerror(errno))
            Unmanaged<HandlerBox>.fromOpaque(context).release()
            throw .cannotListen(listen, reason: reason)
        }
        self.daemon = Daemon(pointer: started, context: context)
        self.address = ListenAddress(host: listen.host, port: scanpick_mhd_bound_port(started))
    }

    /// Stops accepting, waits for running handlers, and frees the server. Safe to call twice.
    public func stop() {
        daemon.stop()
    }

    deinit { stop() }
}

/// Why the server could not start.
public enum HTTPServerError: Error, Equatable, Sendable, CustomStringConvertible {
    case cannotListen(ListenAddress, reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let address, let reason): "cannot listen on \(address): \(reason)"
        }
    }
}

/// The libmicrohttpd daemon and the retained handler context its callbacks use. Its state is
/// guarded by `lock`, and `MHD_stop_daemon` is safe from any thread, hence `@unchecked Sendable`.
private final class Daemon: @unchecked Sendable {
    private let lock = NSLock()
    private var pointer: OpaquePointer?
    private let context: UnsafeMutableRawPointer

    init(pointer: OpaquePointer, context: UnsafeMutableRawPointer) {
        self.pointer = pointer
        self.context = context
    }

    /// Stops the daemon (waiting for running handlers) and frees the context, once.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard let running = pointer else { return }
        MHD_stop_daemon(running)
        pointer = nil
        Unmanaged<HandlerBox>.fromOpaque(context).release()
    }
}

/// What the C callbacks need, reached through libmicrohttpd's context pointer.
private final class HandlerBox: Sendable {
    let handler: HTTPServer.Handler
    let maxBodyBytes: Int
    init(handler: @escaping HTTPServer.Handler, maxBodyBytes: Int) {
        self.handler = handler
        self.maxBodyBytes = maxBodyBytes
    }
}

/// One request's body as it arrives. Touched only by its connection's thread.
private final class UploadState {
    var body: [UInt8] = []
    var tooLarge = false
}

/// libmicrohttpd calls this first with no state (headers read), then once per body chunk, then once
/// with no data: that last call answers.
private let accessHandler: MHD_AccessHandlerCallback = {
    context, connection, url, method, _, uploadData, uploadSize, connectionState in
    guard let context, let connection, let uploadSize, let connectionState else { return .NO }
    let box = Unmanaged<HandlerBox>.fromOpaque(context).takeUnretainedValue()

    guard let existing = connectionState.pointee else {
        let state = UploadState()
        if let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
            let bytes = Int(String(cString: length)), bytes > box.maxBodyBytes
        {
            state.tooLarge = true
        }
        connectionState.pointee = Unmanaged.passRetained(state).toOpaque()
        return .YES
    }
    let state = Unmanaged<UploadState>.fromOpaque(existing).takeUnretainedValue()
    if uploadSize.pointee > 0 {
        if !state.tooLarge, let uploadData {
            uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadSize.pointee))
            }
            if state.body.count > box.maxBodyBytes {
                state.tooLarge = true
                state.body = []
            }
        }
        uploadSize.pointee = 0
        return .YES
    }

    let response: HTTPResponse
    if state.tooLarge {
        let message = #"{"error":"payload_too_large","message":"the request body is over \#(box.maxBodyBytes) bytes"}"#
        response = .json(413, Array(message.utf8))
    } else {
        let rawPath = url.map { String(cString: $0) } ?? "/"
        let request = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "GET", path: rawPath,
            query: values(connection, .GET_ARGUMENT_KIND, lowercased: false),
            headers: values(connection, .HEADER_KIND, lowercased: true), body: state.body)
        response = box.handler(request)
    }
    return send(response, on: connection)
}

/// Frees a request's upload state, however the request ended (answered or aborted).
private let requestCompleted: MHD_RequestCompletedCallback = { _, _, connectionState, _ in
    guard let connectionState, let state = connectionState.pointee else { return }
    Unmanaged<UploadState>.fromOpaque(state).release()
    connectionState.pointee = nil
}

private func send(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let made = response.body.withUnsafeBytes { body in
        scanpick_mhd_response_copying(body.count, body.baseAddress)
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    for (name, value) in response.headers { MHD_add_response_header(made, name, value) }
    return MHD_queue_response(connection, UInt32(response.status), made)
}

/// Collects a connection's headers or query arguments into a dictionary.
private func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind, lowercased: Bool) -> [String: String] {
    final class Collected {
        var values: [String: String] = [:]
        let lowercased: Bool
        init(lowercased: Bool) { self.lowercased = lowercased }
    }
    let collected = Collected(lowercased: lowercased)
    let pointer = Unmanaged.passUnretained(collected).toOpaque()
    MHD_get_connection_values(
        connection, kind,
        { context, _, key, value in
            guard let context, let key else { return .YES }
            let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
            let name = String(cString: key)
            collected.values[collected.lowercased ? name.lowercased() : name] = value.map { String(cString: $0) } ?? ""
            return .YES
        }, pointer)
    return withExtendedLifetime(collected) { collected.values }
}

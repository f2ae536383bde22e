internal import CMicroHTTPD
internal import CMicroHTTPDErrors
import Foundation

// The C callbacks libmicrohttpd calls, all on its polling threads. Each reaches the `ServerCore`
// through its context pointer.

/// Called first when a request head has arrived (no request state yet): the head is checked and
/// may be refused before any of the body is read. Then once per body chunk, then with no data once
/// the body is complete: that call answers, at once or by suspending the connection. After a worker
/// or responder has answered, the resumed connection brings one more call, which sends the answer.
let accessHandler: MHD_AccessHandlerCallback = {
    context, connection, url, method, version, uploadData, uploadSize, requestState in
    guard let context, let connection, let uploadSize, let requestState else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue()

    guard let existing = requestState.pointee else {
        let entry = scanpick_mhd_socket_context(connection).map {
            Unmanaged<ConnectionDeadlines.Entry>.fromOpaque($0).takeUnretainedValue()
        }
        if let entry { core.deadlines.headReceived(entry) }
        let headers = HeaderCollector.collect(connection, .HEADER_KIND, lowercased: true)
        var head = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
            query: HeaderCollector.collect(connection, .GET_ARGUMENT_KIND, lowercased: false).values,
            headers: headers.values, repeatedHeaders: headers.repeated)
        let declared = head.header("content-length").map { Int($0) ?? Int.max } ?? 0
        if let refusal = HeadRules.refusal(
            head, version: version.map { String(cString: $0) } ?? "", declaredBodyBytes: declared,
            limits: core.limits)
            ?? core.checkHead?(&head)
        {
            // libmicrohttpd then drops the body and closes the connection; its socket lingers to
            // read the body the client is still sending, so the refusal reaches the client.
            if declared > 0 || head.header("transfer-encoding") != nil {
                entry?.lingers.store(true, ordering: .relaxed)
            }
            return send(refusal, on: connection)
        }
        let state = RequestState(
            head: head, connection: entry, expectedBodyBytes: min(declared, core.limits.maxBodyBytes),
            arrivedAlone: core.heads.arrived(on: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))))
        requestState.pointee = Unmanaged.passRetained(state).toOpaque()
        core.requestsOpen.add(1, ordering: .relaxed)
        return .YES
    }
    let state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
    if uploadSize.pointee > 0 {
        if let uploadData {
            uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                state.append(
                    UnsafeBufferPointer(start: $0, count: uploadSize.pointee), limit: core.limits.maxBodyBytes,
                    budget: core.bodyBudget)
            }
        }
        uploadSize.pointee = 0
        return .YES
    }
    // From here on the request is answered: its body bytes go back to the budget first, so the
    // client's next request never finds them still held.
    if let answer = state.takeAnswer() { return send(answer, on: connection, releasing: state, core) }
    guard !state.isDispatched else { return .NO }  // resumed without an answer: cannot happen; close

    if let entry = state.connection { core.deadlines.requestReceived(entry) }
    var request = state.head
    switch state.takeBody() {
    case .success(let body): request.body = body
    case .failure(let refused) where refused.refusal == .tooLarge:
        return send(HeadRules.tooLarge(core.limits), on: connection, releasing: state, core)
    case .failure:
        return send(ServerCore.busy, on: connection, releasing: state, core)
    }
    let answer = core.router(request)
    if case .now(let response) = answer { return send(response, on: connection, releasing: state, core) }
    switch core.dispatch(answer, state: state, connection: SuspendedConnection(pointer: connection)) {
    case .suspended:
        return .YES
    case .answered:
        guard let answer = state.takeAnswer() else { return .NO }  // recorded before it was handed over
        return send(answer, on: connection, releasing: state, core)
    case .refused:
        return send(ServerCore.busy, on: connection, releasing: state, core)
    }
}

/// Frees a request's state, however the request ended (answered or aborted), gives its body bytes
/// back, starts the connection's wait for its next request head, and runs what its responder asked
/// to run once the answer was sent.
let requestCompleted: MHD_RequestCompletedCallback = { context, _, requestState, _ in
    guard let context, let requestState, let pointer = requestState.pointee else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue()
    let state = Unmanaged<RequestState>.fromOpaque(pointer).takeRetainedValue()
    requestState.pointee = nil
    core.requestsOpen.subtract(1, ordering: .relaxed)
    state.finish(budget: core.bodyBudget)
    state.takeWhenSent()?()  // before it counts as sent: a stop waits for it
    if state.isCountedUntilSent { core.sentOne() }
    if let entry = state.connection { core.deadlines.answered(entry) }
}

/// Takes a new connection unless the server is stopping (then libmicrohttpd closes it at once, and a
/// proxy in front sends its request to another server).
let admitConnection: MHD_AcceptPolicyCallback = { context, _, _ in
    guard let context else { return .NO }
    return Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue().isStopping ? .NO : .YES
}

/// Registers each new connection with the deadline sweep, and removes it before its socket closes.
let connectionNotified: MHD_NotifyConnectionCallback = { context, connection, socketContext, event in
    guard let context, let connection, let socketContext else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue()
    let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    switch event.rawValue {
    case 0:  // MHD_CONNECTION_NOTIFY_STARTED
        let entry = core.deadlines.opened(key, socket: scanpick_mhd_connection_socket(connection))
        socketContext.pointee = Unmanaged.passRetained(entry).toOpaque()
    case 1:  // MHD_CONNECTION_NOTIFY_CLOSED (its socket is still open)
        core.deadlines.closed(key)
        if let pointer = socketContext.pointee {
            let entry = Unmanaged<ConnectionDeadlines.Entry>.fromOpaque(pointer).takeRetainedValue()
            socketContext.pointee = nil
            // Closed with the client still sending (a refusal from the head, or libmicrohttpd's own
            // 400/413/431): let the socket linger rather than answer the rest with a reset.
            if entry.lingers.load(ordering: .relaxed) || hasUnreadBytes(entry.socket) {
                core.lingering.adopt(entry.socket)
            }
        }
    default:
        break
    }
}

/// Whether bytes the client sent wait unread on `socket`.
private func hasUnreadBytes(_ socket: Int32) -> Bool {
    var byte: UInt8 = 0
    return recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
}

/// Gives the request's body bytes back to the budget, then sends `response`.
private func send(
    _ response: HTTPResponse, on connection: OpaquePointer, releasing state: RequestState, _ core: ServerCore
) -> MHD_Result {
    state.finish(budget: core.bodyBudget)
    return send(response, on: connection, core: core)
}

/// Queues `response` on `connection`. A streamed body (``HTTPStream``) is read by libmicrohttpd
/// as it is written, and counted among the server's open streams until it finishes; without a
/// `core` (a refusal of a request's head) a stream is not expected and is ended at once.
private func send(_ response: HTTPResponse, on connection: OpaquePointer, core: ServerCore? = nil) -> MHD_Result {
    let made: OpaquePointer?
    if let stream = response.stream {
        made = streamingResponse(stream, on: connection, core: core)
    } else {
        made = response.body.withUnsafeBytes { body in
            scanpick_mhd_response_copying(body.count, body.baseAddress)
        }
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }  // the connection keeps it until it is sent
    for (name, value) in response.headers { MHD_add_response_header(made, name, value) }
    // Not `MHD_queue_response` itself: a call to that from libmicrohttpd is one of its own refusals,
    // which CMicroHTTPDErrors answers in JSON.
    let queued = scanpick_mhd_queue_own(
        UnsafeMutableRawPointer(connection), UInt32(response.status), UnsafeMutableRawPointer(made))
    return queued == 1 ? .YES : .NO
}

/// A libmicrohttpd response reading `stream`; nil when it could not be made (the stream is then
/// finished).
private func streamingResponse(_ stream: HTTPStream, on connection: OpaquePointer, core: ServerCore?)
    -> OpaquePointer?
{
    guard let core, core.streams.admit(stream) else {
        stream.finish()
        return nil
    }
    stream.attach(connection)
    let context = Unmanaged.passRetained(StreamContext(stream: stream, core: core)).toOpaque()
    guard let made = scanpick_mhd_response_streaming(32 * 1024, readStream, context, freeStream) else {
        Unmanaged<StreamContext>.fromOpaque(context).release()
        core.streams.remove(stream)
        stream.finish()
        return nil
    }
    return made
}

/// What a streamed response's callbacks reach: the stream, and the server that counts it.
private final class StreamContext: Sendable {
    let stream: HTTPStream
    let core: ServerCore
    init(stream: HTTPStream, core: ServerCore) {
        self.stream = stream
        self.core = core
    }
}

/// libmicrohttpd asks a streamed response for its next bytes (on a polling thread).
private let readStream: MHD_ContentReaderCallback = { context, _, buffer, capacity in
    guard let context, let buffer else { return HTTPStream.endWithError }
    let stream = Unmanaged<StreamContext>.fromOpaque(context).takeUnretainedValue().stream
    return stream.read(into: buffer, capacity: capacity)
}

/// libmicrohttpd is done with a streamed response: the stream is finished and no longer counted.
private let freeStream: MHD_ContentReaderFreeCallback = { context in
    guard let context else { return }
    let box = Unmanaged<StreamContext>.fromOpaque(context).takeRetainedValue()
    box.core.streams.remove(box.stream)
    box.stream.finish()
}

/// Collects a connection's headers or query arguments, noting the names that came more than once.
private enum HeaderCollector {
    final class Collected {
        var values: [String: String] = [:]
        var repeated: Set<String> = []
        let lowercased: Bool
        init(lowercased: Bool) { self.lowercased = lowercased }
    }

    static func collect(_ connection: OpaquePointer, _ kind: MHD_ValueKind, lowercased: Bool) -> Collected {
        let collected = Collected(lowercased: lowercased)
        let pointer = Unmanaged.passUnretained(collected).toOpaque()
        MHD_get_connection_values(
            connection, kind,
            { context, _, key, value in
                guard let context, let key else { return .YES }
                let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
                let raw = String(cString: key)
                let name = collected.lowercased ? raw.lowercased() : raw
                if collected.values.updateValue(value.map { String(cString: $0) } ?? "", forKey: name) != nil {
                    collected.repeated.insert(name)
                }
                return .YES
            }, pointer)
        return withExtendedLifetime(collected) { collected }
    }
}

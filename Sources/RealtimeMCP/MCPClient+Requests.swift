#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Realtime
@_spi(Transport) import RealtimeCore

extension MCPClient {
    /// Sends a request and waits for its result. Cancelling the calling task cancels the
    /// request on the server (`notifications/cancelled`; on 2026-07-28 its stream is closed)
    /// and throws `cancelled`; no response within ``Configuration/requestTimeout`` does the
    /// same and throws `request_timeout`. A request whose answer was lost is sent again as a
    /// new request only when that is safe (``Configuration/maxReissues``).
    ///
    /// A result of type `input_required` (2026-07-28) is not returned: its input requests
    /// (`elicitation/create`, `sampling/createMessage`, `roots/list`) are answered by the
    /// handlers set with ``setRequestHandler(_:_:)``, and the request is sent again with the
    /// answers (`inputResponses`, by the server's keys) and the server's `requestState`
    /// untouched, at most ``Configuration/maxInputRounds`` times. An input request without a
    /// handler fails the request with a JSON-RPC error -32601; a handler's error fails it
    /// too.
    public func request(
        _ method: String, params: JSONValue? = nil, onProgress: (@Sendable (MCPProgress) -> Void)? = nil
    ) async throws -> JSONValue {
        try refuseAfterAFailedConnect()
        var params = params
        var rounds = 0
        while true {
            let result = try await requestReissuing(method, params: params, onProgress: onProgress)
            guard result["resultType"] == .string("input_required") else { return result }
            rounds += 1
            guard rounds <= configuration.maxInputRounds else {
                throw MCPError(.invalidResponse, detail: "\(method) asked for input more than \(configuration.maxInputRounds) times")
            }
            params = try await answering(result, params)
        }
    }

    /// `params` for the next round of a request answered `input_required`: the handlers'
    /// answers to the input requests, and the request state as the server sent it.
    private func answering(_ result: JSONValue, _ params: JSONValue?) async throws -> JSONValue {
        var next = params?.objectValue ?? [:]
        var responses: [String: JSONValue] = [:]
        for (key, input) in result["inputRequests"]?.objectValue ?? [:] {
            let method = input["method"]?.stringValue ?? ""
            guard let handler = handlers[method] else {
                throw MCPError.rpc(code: -32601, message: "no handler for the server's input request \(method.prefix(100))", data: nil)
            }
            responses[key] = try await handler(input["params"])
        }
        next["inputResponses"] = responses.isEmpty ? nil : .object(responses)
        next["requestState"] = result["requestState"]
        return .object(next)
    }

    private func requestReissuing(
        _ method: String, params: JSONValue?, onProgress: (@Sendable (MCPProgress) -> Void)?
    ) async throws -> JSONValue {
        var reissues = 0
        while true {
            do {
                return try await requestOnce(method, params: params, onProgress: onProgress, timeout: configuration.requestTimeout)
            } catch let error as MCPError where error.code == .streamEnded {
                guard reissues < configuration.maxReissues, isSafeToRepeat(method, params: params) else { throw error }
                reissues += 1
                do {
                    try await transport.clock.sleep(transport.clock.now() + .milliseconds(100 << (reissues - 1)))
                } catch {
                    throw MCPError(.cancelled)
                }
            }
        }
    }

    /// Methods that read and change nothing on the server.
    static let readMethods: Set<String> = [
        "tools/list", "resources/list", "resources/templates/list", "resources/read", "prompts/list", "prompts/get",
        "completion/complete", "ping",
    ]

    /// Whether sending `method` again can change nothing more than sending it once did.
    func isSafeToRepeat(_ method: String, params: JSONValue?) -> Bool {
        if Self.readMethods.contains(method) { return true }
        guard method == "tools/call", let name = params?["name"]?.stringValue else { return false }
        return repeatableTools.contains(name)
    }

    /// Sends one request with the id `id` (a new one when nil) and waits for its answer,
    /// for at most `timeout` (nil: no bound of its own).
    func requestOnce(
        _ method: String, params: JSONValue?, onProgress: (@Sendable (MCPProgress) -> Void)?, id given: JSONValue? = nil,
        timeout: Duration?
    ) async throws -> JSONValue {
        let id = given ?? .number(Double(nextID))
        if given == nil { nextID += 1 }
        var message: [String: JSONValue] = ["jsonrpc": "2.0", "id": id, "method": .string(method)]
        var parameters = params?.objectValue ?? [:]
        if let onProgress {
            var meta = parameters["_meta"]?.objectValue ?? [:]
            meta["progressToken"] = id
            parameters["_meta"] = .object(meta)
            progressHandlers[id] = onProgress
        }
        let traced = Self.addTraceContext(configuration.traceContext?(), to: &parameters)
        if params != nil || onProgress != nil || traced { message["params"] = .object(parameters) }
        let data = JSONValue.object(message).jsonData
        // A client must not cancel its `initialize` (MCP, Cancellation): its stream is only closed.
        let tells = method != "initialize"
        let timer = timeout.map { timeout in
            transport.clock.arm(after: timeout) {
                Task {
                    let error = MCPError(.timeout, detail: "no response within \(timeout.millisecondsDescription)")
                    await self.abandon(id, with: error, tellingServer: tells)
                }
            }
        }
        defer { timer?.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<JSONValue, any Error>) in
                pending[id] = c
                if Task.isCancelled {
                    Task { await self.abandon(id, with: MCPError(.cancelled), tellingServer: tells) }
                } else {
                    Task { await self.post(data, id: id) }
                }
            }
        } onCancel: {
            Task { await self.abandon(id, with: MCPError(.cancelled), tellingServer: tells) }
        }
    }

    /// Puts `context` in `parameters._meta` when its `traceparent` has the W3C form.
    static func addTraceContext(_ context: (traceparent: String, tracestate: String?)?, to parameters: inout [String: JSONValue]) -> Bool {
        guard let context, isTraceparent(context.traceparent) else { return false }
        var meta = parameters["_meta"]?.objectValue ?? [:]
        meta["traceparent"] = .string(context.traceparent)
        if let state = context.tracestate, !state.isEmpty, state.utf8.count <= 512 { meta["tracestate"] = .string(state) }
        parameters["_meta"] = .object(meta)
        return true
    }

    /// `00-<32 hex>-<16 hex>-<2 hex>`, lowercase (W3C Trace Context, version 00).
    static func isTraceparent(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.map(\.count) == [2, 32, 16, 2] else { return false }
        return parts.allSatisfy { $0.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) } }
    }

    /// Sends a notification.
    ///
    /// - Throws: ``MCPError`` `not_connected` after a failed ``connect()``, until one succeeds.
    public func notify(_ method: String, params: JSONValue? = nil) async throws {
        try refuseAfterAFailedConnect()
        var message: [String: JSONValue] = ["jsonrpc": "2.0", "method": .string(method)]
        if let params { message["params"] = params }
        try await transport.send(JSONValue.object(message).jsonData)
    }

    /// After a failed ``connect()`` nothing the application sends goes out on the half-made
    /// session: `not_connected` until a connect succeeds.
    private func refuseAfterAFailedConnect() throws {
        if connectFailed {
            throw MCPError(.notConnected, detail: "the last connect() failed; call connect() again")
        }
    }

    private func post(_ data: Data, id: JSONValue) async {
        guard pending[id] != nil else { return }
        // A session the server forgot (found by a resumption, or a renewal that failed) is
        // renewed before the request goes out.
        var renewedFirst = false
        if configuration.renewsExpiredSession, await transport.sessionLost {
            renewedFirst = true
            await renewSession()
        }
        guard pending[id] != nil else { return }
        issued.insert(id)
        do {
            try await transport.send(data)
        } catch {
            issued.remove(id)
            let failure = error as? MCPError ?? MCPError(.transport, detail: "\(type(of: error))")
            if failure.code == .sessionExpired, configuration.renewsExpiredSession, !renewedFirst { await renewSession() }
            resolve(id, .failure(failure))
        }
    }

    /// Starts a new session after the server forgot the last one (one renewal at a time).
    private func renewSession() async {
        guard !renewingSession, let revision = server?.revision, !revision.isStateless else { return }
        renewingSession = true
        defer { renewingSession = false }
        if let info = try? await initialize(.latestSession) {
            server = info
        } else {
            // The revision stays the negotiated one for what follows.
            await transport.use(revision: revision)
        }
    }

    /// Gives up on `id`: fails the caller, closes the request's stream (nothing more of its
    /// answer is read), then tells the server with `notifications/cancelled` when
    /// `tellingServer` and the request was sent (a cancellation may only name a request that
    /// was issued). The stream is closed first: a server slow to take the notification must
    /// not keep it open.
    func abandon(_ id: JSONValue, with error: MCPError, tellingServer: Bool) async {
        guard pending[id] != nil else { return }
        let wasIssued = issued.contains(id)
        resolve(id, .failure(error))
        await transport.cancelStream(requestID: id)
        if tellingServer, wasIssued {
            let cancel: JSONValue = [
                "requestId": id, "reason": .string(error.code == .timeout ? "request timed out" : "cancelled by the client"),
            ]
            try? await notify("notifications/cancelled", params: cancel)
        }
    }

    func resolve(_ id: JSONValue, _ result: Result<JSONValue, any Error>) {
        progressHandlers[id] = nil
        issued.remove(id)
        pending.removeValue(forKey: id)?.resume(with: result)
    }

    func failAll(_ error: MCPError) {
        for id in Array(pending.keys) { resolve(id, .failure(error)) }
    }

    // MARK: Incoming

    func read(_ stream: BoundedChannel<MCPInbound>) async {
        for await message in stream { await handle(message.value) }
        failAll(MCPError(.notConnected, detail: "the transport closed"))
    }

    private func handle(_ value: JSONValue) async {
        guard case .object(let message) = value else { return }
        if let method = message["method"]?.stringValue {
            if let id = message["id"] {
                await accept(id: id, method: method, params: message["params"])
            } else {
                notified(method, params: message["params"])
            }
            return
        }
        guard let id = message["id"], pending[id] != nil else { return }
        if let error = message["error"] {
            var typed = Self.error(from: error)
            if typed.code != .rpc {
                // Only a response the transport wrote carries its codes: the server's own
                // -32000 is a JSON-RPC error, whatever its data says.
                typed = await transport.failure(for: id) ?? Self.rpcError(from: error)
            }
            resolve(id, .failure(typed))
        } else {
            resolve(id, .success(message["result"] ?? .null))
        }
    }

    private func notified(_ method: String, params: JSONValue?) {
        if method == "notifications/tools/list_changed" { toolsCache = nil }
        if routeToListeners(method, params: params) { return }
        if method == "notifications/progress", let params, let token = params["progressToken"],
            let progress = params["progress"]?.numberValue
        {
            progressHandlers[token]?(
                MCPProgress(progress: progress, total: params["total"]?.numberValue, message: params["message"]?.stringValue))
        }
        notificationSink.yield(MCPNotification(method: method, params: params))
    }

    /// Runs the handler for a request from the server, or refuses it when
    /// ``Configuration/maxConcurrentServerRequests`` handlers run already (the refusal is sent
    /// before the reader goes on).
    private func accept(id: JSONValue, method: String, params: JSONValue?) async {
        let limit = Swift.max(1, configuration.maxConcurrentServerRequests)
        guard serverRequestsInProgress < limit else {
            let error: JSONValue = [
                "code": -32000, "message": .string("too many server requests in progress (limit \(limit))"),
            ]
            try? await transport.send(JSONValue.object(["jsonrpc": "2.0", "id": id, "error": error]).jsonData)
            return
        }
        serverRequestsInProgress += 1
        Task {
            await self.answer(id: id, method: method, params: params)
            self.serverRequestEnded()
        }
    }

    private func serverRequestEnded() {
        serverRequestsInProgress -= 1
    }

    private func answer(id: JSONValue, method: String, params: JSONValue?) async {
        var response: [String: JSONValue] = ["jsonrpc": "2.0", "id": id]
        if let handler = handlers[method] {
            do {
                response["result"] = try await handler(params)
            } catch let error as MCPError where error.code == .rpc {
                response["error"] = ["code": .number(Double(error.rpcCode ?? -32603)), "message": .string(error.message ?? "")]
            } catch {
                response["error"] = ["code": -32603, "message": "internal error"]
            }
        } else {
            response["error"] = ["code": -32601, "message": .string("method not found: \(method.prefix(100))")]
        }
        try? await transport.send(JSONValue.object(response).jsonData)
    }

    /// A JSON-RPC error object as a typed error; the transport's own responses keep its code.
    static func error(from error: JSONValue) -> MCPError {
        if Int(error["code"]?.numberValue ?? -32603) == MCPStreamableHTTPTransport.transportErrorCode,
            let kind = error["data"]?["transport"]?.stringValue, let base = MCPError.Base(rawValue: kind)
        {
            let status = error["data"]?["status"]?.numberValue.map { Int($0) }
            return MCPError(base, detail: error["message"]?.stringValue ?? "", status: status)
        }
        return rpcError(from: error)
    }

    /// A JSON-RPC error object as an `rpc_error`, its code, message and data as sent.
    static func rpcError(from error: JSONValue) -> MCPError {
        .rpc(code: Int(error["code"]?.numberValue ?? -32603), message: error["message"]?.stringValue ?? "", data: error["data"])
    }
}

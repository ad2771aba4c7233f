#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Transport) import Realtime

/// How the answer to one POST began.
enum MCPPostHead: Sendable {
    /// A stream or a JSON body follows.
    case opened(ConnectionInfo)
    /// `202 Accepted` (or an answer with no body): nothing follows.
    case accepted
    case failed(RealtimeError)
}

extension MCPStreamableHTTPTransport {
    /// POSTs one message on its own ``RealtimeClient`` and waits for the answer's head.
    func post(_ body: [UInt8], message: MCPOutgoingMessage) async throws {
        let gate = MCPAttemptGate()
        let session = sessionID
        var c = clientConfiguration(method: "POST", body: body, headers: requestHeaders(for: message), gate: gate)
        // Repeatable for the client's machinery so that a cut stream reconnects; the gate turns
        // every reconnection into a GET with Last-Event-ID and refuses any other.
        c.requestIsRepeatable = true
        // The request's own timeout (the caller's) bounds a late answer, not the connect timeout.
        // A notification or a response runs nothing on the server (it answers 202 at once), and
        // nobody times it out: the connect timeout bounds its answer.
        let unbounded: Duration = message.kind == .request ? .seconds(365 * 24 * 3600) : configuration.connectTimeout
        c.responseTimeout = configuration.responseTimeout ?? unbounded
        // `maxAttempts` counts the POST too: n resumptions are n + 1 attempts (0 turns them off).
        let resumes = Swift.max(0, configuration.maxResumeAttempts)
        c.reconnect = ReconnectPolicy(maxAttempts: resumes + 1, reconnectsAfterCleanEnd: true)
        let client: RealtimeClient
        do {
            client = try makeClient(legacyEndpoint ?? url, c, gate)
        } catch let error as RealtimeError {
            throw MCPError(.transport, underlying: error)
        }
        let key = nextStreamKey
        nextStreamKey += 1
        // Over HTTP+SSE (2024-11-05) the answer comes on the server's stream, never on the POST's.
        let requestID = message.kind == .request && legacyEndpoint == nil ? message.id : nil
        streams[key] = RequestStream(
            client: client, machine: MCPStreamMachine(requestID: requestID, maxResumes: resumes),
            requestID: requestID, isInitialize: message.method == "initialize", session: session)
        let (heads, headContinuation) = AsyncStream<MCPPostHead>.makeStream()
        Task { await self.pump(client, key: key, head: headContinuation) }
        var outcome = MCPPostHead.failed(RealtimeError(.cancelled))
        for await head in heads {
            outcome = head
            break
        }
        switch outcome {
        case .opened:
            break
        case .accepted:
            streams.removeValue(forKey: key)
        case .failed(let error):
            streams.removeValue(forKey: key)
            try rejected(error, requestID: requestID, session: session)
        }
    }

    /// Maps a refused POST to the error `send` throws, or delivers the JSON-RPC error the
    /// refusal carried (a 4xx whose body answers the request).
    private func rejected(_ error: RealtimeError, requestID: JSONValue?, session: String?) throws {
        if error.code == .httpStatus, let excerpt = error.bodyExcerpt, let requestID,
            let value = try? JSONValue(json: Data(excerpt.utf8)), value["error"] != nil, value["id"] == requestID
        {
            inbound.send(MCPInbound(value))
            return
        }
        if error.status == 404, let session { throw sessionExpired(session) }
        if error.code == .invalidContentType {
            throw MCPError(.invalidResponse, detail: error.detail, status: error.status, underlying: error)
        }
        throw MCPError(.transport, status: error.status, underlying: error)
    }

    /// Reads one request's client until it stops, feeding the stream machine.
    nonisolated func pump(_ client: RealtimeClient, key: Int, head: AsyncStream<MCPPostHead>.Continuation) async {
        var headSent = false
        var lastError: RealtimeError?
        for await event in client.events {
            switch event {
            case .open(let info):
                guard !headSent else { continue }
                // The session id is kept before anything of the answer is delivered.
                await opened(info, key: key)
                headSent = true
                head.yield(.opened(info))
                head.finish()
            case .event(let message):
                if let pause = await received(message, key: key) { await inbound.waitForRoom(pause) }
            case .error(let e):
                // The client withdrawing a reconnect it had announced (a 202 or 204 answering
                // the retried request after a 401): the request's end, not a failure of it.
                if e.error.code == .streamEnded, !e.willRetry { continue }
                lastError = e.error
                if !headSent {
                    // Before an answer only a refused credential may be retried (the gate
                    // repeats the POST once); anything else fails the send.
                    if e.willRetry, e.error.status == 401 {
                        lastError = nil
                        continue
                    }
                    head.yield(.failed(e.error))
                    head.finish()
                    client.close()
                    // `send` reports the refusal (or delivers the error it carried).
                    return
                } else if e.willRetry {
                    await ended(key: key, willReconnect: true, error: e.error)
                }
            case .closed(let c):
                if !headSent { continue }
                if c.willReconnect {
                    if lastError == nil { await ended(key: key, willReconnect: true, error: nil) }
                } else {
                    await ended(key: key, willReconnect: false, error: lastError)
                }
                lastError = nil
            }
        }
        if !headSent { head.yield(lastError.map { .failed($0) } ?? .accepted) }
        head.finish()
        await ended(key: key, willReconnect: false, error: lastError)
    }

    /// Keeps the session id an `initialize` answer assigns. One that is not visible ASCII
    /// (0x21-0x7E, as the specification requires) could never be sent back: the initialize
    /// fails with `invalid_response` instead of every later request failing.
    private func opened(_ info: ConnectionInfo, key: Int) {
        guard streams[key]?.isInitialize == true, let id = info.headers["Mcp-Session-Id"], !id.isEmpty else { return }
        guard id.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            guard let stream = streams.removeValue(forKey: key) else { return }
            stream.client.close()
            fail(stream.requestID, with: MCPError(
                .invalidResponse, detail: "the server's Mcp-Session-Id is not visible ASCII (0x21-0x7E)"))
            return
        }
        sessionID = id
    }

    /// Feeds one event of a request's stream to its machine; a ``MCPInboundQueue/Pause`` when
    /// the pump must wait for the reader before it reads on.
    private func received(_ message: Message, key: Int) -> MCPInboundQueue.Pause? {
        guard var stream = streams[key] else { return nil }
        let action = stream.machine.received(message.text ?? "", eventID: message.id)
        streams[key] = stream
        switch action {
        case .deliver(let message):
            return deliver(message)
        case .complete(let message):
            streams.removeValue(forKey: key)
            stream.client.close()
            return deliver(message)
        case .ignore:
            return nil
        case .fail(let error):
            streams.removeValue(forKey: key)
            stream.client.close()
            fail(stream.requestID, with: error)
            return nil
        }
    }

    private func ended(key: Int, willReconnect: Bool, error: RealtimeError?) {
        guard var stream = streams[key] else { return }
        let end = stream.machine.ended(willReconnect: willReconnect, error: error)
        streams[key] = stream
        switch end {
        case .finished:
            streams.removeValue(forKey: key)
            if willReconnect { stream.client.close() }
        case .resume:
            break  // the client reconnects; the gate makes it a GET with Last-Event-ID
        case .fail(var error):
            streams.removeValue(forKey: key)
            stream.client.close()
            // A resumption's GET carries the session id: its 404 means the session is gone.
            if error.status == 404, let session = stream.session { error = sessionExpired(session) }
            fail(stream.requestID, with: error)
        }
    }

    /// Hands a server message over, first noting what the transport itself needs from it.
    private func deliver(_ message: MCPInbound) -> MCPInboundQueue.Pause? {
        if let pending = pendingInitialize, message.value["id"] == pending,
            let version = message.value["result"]?["protocolVersion"]?.stringValue
        {
            pendingInitialize = nil
            revision = MCPRevision(version)
            sessionLost = false
        }
        return inbound.send(message)
    }

    /// The response the transport writes for a request whose stream failed.
    private func fail(_ requestID: JSONValue?, with error: MCPError) {
        guard let requestID else { return }
        failures[requestID] = error
        failureOrder.append(requestID)
        if failureOrder.count > Self.keptFailures { failures[failureOrder.removeFirst()] = nil }
        var data: [String: JSONValue] = ["transport": .string(error.code.description)]
        if let status = error.status { data["status"] = .number(Double(status)) }
        if let underlying = error.underlying { data["cause"] = .string(underlying.code.description) }
        let response: JSONValue = [
            "jsonrpc": "2.0", "id": requestID,
            "error": [
                "code": .number(Double(Self.transportErrorCode)), "message": .string(error.description),
                "data": .object(data),
            ],
        ]
        inbound.send(MCPInbound(response))
    }
}

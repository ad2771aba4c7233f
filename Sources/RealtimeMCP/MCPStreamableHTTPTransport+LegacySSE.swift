#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Realtime

extension MCPStreamableHTTPTransport {
    /// Switches to the HTTP+SSE transport of revision 2024-11-05, for a server that refused
    /// the Streamable HTTP `initialize` with a 4xx: a GET of the URL opens the server's
    /// stream, whose first event (`endpoint`) names where messages are POSTed; every message
    /// from the server then comes on that stream (`message` events), answers included, and a
    /// POST is only accepted (`202`). The endpoint must be on the URL's origin (the request
    /// headers, credentials included, go there). The stream is not resumed: when it ends the
    /// session is gone, ``receive()`` ends and ``send(_:)`` throws `not_connected`. A stream
    /// that names no endpoint within `timeout` (an event stream that is not an MCP server's)
    /// fails with `request_timeout`.
    func openLegacyStream(within timeout: Duration) async throws {
        guard connected else { throw MCPError(.notConnected) }
        guard legacyStream == nil else { return }
        var headers = configuration.headers
        headers.replaceOrAdd(name: "Accept", value: "text/event-stream")
        var c = clientConfiguration(method: "GET", body: nil, headers: headers, gate: nil)
        c.reconnect = .never
        let client: RealtimeClient
        do {
            client = try makeClient(url, c, nil)
        } catch let error as RealtimeError {
            throw MCPError(.transport, underlying: error)
        }
        legacyStream = client
        let (endpoints, found) = AsyncStream<Result<URL, MCPError>>.makeStream()
        Task { await self.pumpLegacyStream(client, found) }
        let deadline = clock.arm(after: timeout) {
            found.yield(.failure(MCPError(.timeout, detail: "no HTTP+SSE endpoint event within \(timeout.millisecondsDescription)")))
        }
        defer { deadline.cancel() }
        for await result in endpoints {
            do {
                legacyEndpoint = try result.get()
                return
            } catch {
                legacyStream = nil
                client.close()
                throw error
            }
        }
        legacyStream = nil
        throw MCPError(.transport, detail: "the HTTP+SSE stream ended before its endpoint event")
    }

    /// Reads the 2024-11-05 stream: the endpoint first, then the server's messages.
    nonisolated func pumpLegacyStream(_ client: RealtimeClient, _ found: AsyncStream<Result<URL, MCPError>>.Continuation) async {
        var announced = false
        // Whether the stream named a usable endpoint: only then was it a session, which its
        // end finishes (else `openLegacyStream` reports the failure, and `connect()` may be tried again).
        var session = false
        for await event in client.events {
            switch event {
            case .event(let message) where !announced:
                announced = true
                let endpoint = legacyEndpoint(from: message)
                if case .success = endpoint { session = true }
                found.yield(endpoint)
                found.finish()
            case .event(let message):
                // One that is not JSON is not a JSON-RPC message and is skipped, as on the other
                // streams' reader.
                if message.type == nil || message.type == "message", let text = message.text,
                    let parsed = MCPInbound(parsing: Data(text.utf8)), let pause = inbound.send(parsed)
                {
                    await inbound.waitForRoom(pause)
                }
            case .error(let failure) where !failure.willRetry && !announced:
                found.yield(.failure(MCPError(.transport, status: failure.error.status, underlying: failure.error)))
                found.finish()
            default:
                break
            }
        }
        found.finish()
        if session { await legacyStreamEnded(client) }
    }

    /// The `endpoint` event's URL, resolved against the stream's URL and kept to its origin.
    nonisolated func legacyEndpoint(from message: Message) -> Result<URL, MCPError> {
        guard message.type == "endpoint", let text = message.text,
            let endpoint = URL(string: String(text.trimmingASCIISpaces()), relativeTo: url)?.absoluteURL
        else {
            return .failure(MCPError(.invalidResponse, detail: "the HTTP+SSE stream did not start with an endpoint event"))
        }
        guard endpoint.scheme?.lowercased() == url.scheme?.lowercased(), endpoint.host?.lowercased() == url.host?.lowercased(),
            endpoint.port == url.port
        else {
            return .failure(MCPError(.invalidResponse, detail: "the HTTP+SSE endpoint is on another origin"))
        }
        return .success(endpoint)
    }

    /// The stream is the session: once it ends, no answer can come, so the transport stops.
    /// A message sent later would be accepted by a session that is gone, and its request
    /// would wait for an answer until its timeout; `send(_:)` throws `not_connected` instead.
    private func legacyStreamEnded(_ client: RealtimeClient) {
        guard legacyStream === client else { return }
        legacyStream = nil
        connected = false
        for stream in streams.values { stream.client.close() }
        streams.removeAll()
        inbound.finish()
    }
}

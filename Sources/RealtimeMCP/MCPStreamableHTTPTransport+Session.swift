#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Realtime

extension MCPStreamableHTTPTransport {
    /// Opens the server's GET stream and waits for its answer, so that what the server sends
    /// right after the handshake is not lost: reconnected by the client with `Last-Event-ID`
    /// and the server's `retry:`; a 405 means the server offers none.
    func openServerStream() async {
        guard serverStream == nil, hasServerStream != false else { return }
        var headers = requestHeaders(for: nil)
        headers.remove(name: "Content-Type")
        headers.replaceOrAdd(name: "Accept", value: "text/event-stream")
        var c = clientConfiguration(method: "GET", body: nil, headers: headers, gate: nil)
        c.reconnect = .default
        guard let client = try? makeClient(url, c, nil) else { return }
        serverStream = client
        serverMachine = MCPStreamMachine(requestID: nil, maxResumes: 0)
        let (answered, signal) = AsyncStream<Void>.makeStream()
        Task { await self.pumpServerStream(client, answered: signal) }
        for await _ in answered { break }
    }

    /// Reads the server's stream; `answered` is told at the first open or error.
    nonisolated func pumpServerStream(_ client: RealtimeClient, answered: AsyncStream<Void>.Continuation) async {
        for await event in client.events {
            switch event {
            case .open:
                await serverStreamOpened()
            case .event(let message):
                if let pause = await serverStreamReceived(message, from: client) { await inbound.waitForRoom(pause) }
            case .error(let e) where !e.willRetry:
                await serverStreamStopped(e.error, client)
            case .error, .closed:
                break
            }
            if case .event = event { continue }
            answered.finish()
        }
        answered.finish()
    }

    private func serverStreamOpened() { hasServerStream = true }

    private func serverStreamReceived(_ message: Message, from client: RealtimeClient) -> MCPInboundQueue.Pause? {
        guard serverStream === client else { return nil }  // a stream of a session gone
        switch serverMachine.received(message.text ?? "", eventID: message.id) {
        case .deliver(let message), .complete(let message):
            return inbound.send(message)
        case .ignore:
            return nil
        case .fail:
            // A broken server stream ends; the requests' own streams go on.
            serverStream?.close()
            serverStream = nil
            return nil
        }
    }

    /// A 404 to a request that carried session `session`: when it is the current session, the
    /// server forgot it. Its id is dropped, and so is the server's GET stream, which belongs to
    /// it (a new session opens its own after its handshake); nothing but `initialize` goes out
    /// until a new session starts. A 404 for an older session leaves the current one alone.
    func sessionExpired(_ session: String) -> MCPError {
        if session == sessionID {
            sessionID = nil
            sessionLost = true
            serverStream?.close()
            serverStream = nil
        }
        return MCPError(.sessionExpired, detail: "the server no longer knows the session", status: 404)
    }

    private func serverStreamStopped(_ error: RealtimeError, _ client: RealtimeClient) {
        guard serverStream === client else { return }
        if error.status == 405 { hasServerStream = false }
        serverStream = nil
    }

    /// `DELETE` with the session id: the server may end the session (405: it does not let
    /// clients end sessions). The answer does not matter; it is awaited, bounded by twice the
    /// connect timeout (a server that answers the head and never ends the body included).
    func deleteSession(_ id: String) async {
        var headers = requestHeaders(for: nil)
        headers.remove(name: "Content-Type")
        var c = clientConfiguration(method: "DELETE", body: nil, headers: headers, gate: nil)
        c.reconnect = .never
        guard let client = try? makeClient(url, c, nil) else { return }
        let deadline = clock.arm(after: configuration.connectTimeout * 2) { client.close() }
        for await event in client.events {
            if case .closed = event { break }
        }
        client.close()
        deadline.cancel()
    }
}

import Realtime
import Synchronization
import RealtimeCore

/// Decides, for each connection attempt of one request's ``RealtimeClient``, whether it is
/// the POST or a resumption: the request goes out once (again only when the server refused
/// its credentials with 401, which the headers provider is told), and every later attempt is
/// a GET that carries the processed cursor as `Last-Event-ID`. An attempt with neither is
/// refused, so a POST can never be repeated, whatever the reconnect policy says.
final class MCPAttemptGate: Sendable {
    private struct State {
        var posts = 0
        var credentialsRejected = false
    }

    private let state = LockedValue(State())

    /// Records the headers provider's context (called before each attempt).
    func willAttempt(credentialsRejected: Bool) {
        state.withLock { $0.credentialsRejected = credentialsRejected }
    }

    /// The request for one attempt, or an error when no request may be made.
    func request(for request: TransportRequest) throws -> TransportRequest {
        if let cursor = request.lastEventID, !cursor.isEmpty {
            var get = request
            get.method = "GET"
            get.body = nil
            get.headers.remove(name: "Content-Type")
            get.headers.replaceOrAdd(name: "Accept", value: "text/event-stream")
            get.headers.remove(name: "Mcp-Method")
            get.headers.remove(name: "Mcp-Name")
            return get
        }
        let allowed = state.withLock { s -> Bool in
            guard s.posts == 0 || s.credentialsRejected else { return false }
            s.posts += 1
            s.credentialsRejected = false
            return true
        }
        guard allowed else {
            throw RealtimeError(.requestNotRepeatable, detail: "the request was sent; only a cursor can resume it")
        }
        return request
    }
}

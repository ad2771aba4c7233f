#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Realtime

/// The decisions for one SSE stream of the transport: the answer to one POSTed request
/// (with its resumptions through GET), or the server's own GET stream. Pure: messages and
/// ends in, actions out; the transport performs them.
///
/// Rules (MCP Streamable HTTP, 2025-11-25 "Sending Messages to the Server" and "Resumability
/// and Redelivery"): an event with an `id` and empty `data` only primes the cursor; an event id
/// already seen on this stream with the same data is a replay and is not delivered again; a request's stream
/// carries notifications, server requests and finally the one response with the request's
/// id; a JSON-RPC batch or a response to another id breaks the stream. A stream cut before
/// the response may be resumed only from an event id (GET with `Last-Event-ID`), never by
/// sending the request again.
struct MCPStreamMachine {
    enum Action: Equatable {
        /// Hand this message to the receiver.
        case deliver(MCPInbound)
        /// Hand over the response; the stream is done (close it).
        case complete(MCPInbound)
        /// Nothing to deliver (a priming event, a replayed id, a message after the response).
        case ignore
        /// The stream is broken: close it and fail the request with this error.
        case fail(MCPError)
    }

    enum End: Equatable {
        /// The stream is finished: nothing to do.
        case finished
        /// Let the client reconnect with `Last-Event-ID` (after the server's `retry:`).
        case resume(lastEventID: String)
        /// The request cannot be completed: fail it.
        case fail(MCPError)
    }

    /// The POSTed request's id; nil for the server's GET stream.
    let requestID: JSONValue?
    /// How many reconnections may resume the stream.
    let maxResumes: Int
    private(set) var lastEventID: String?
    private(set) var resumes = 0
    private(set) var isDone = false
    /// The last events seen on this stream (id and data), bounded so an endless stream
    /// stays bounded. The id alone cannot tell a replay: an event without an `id` field
    /// carries the last id before it (WHATWG HTML §9.2.6).
    private var seen: RecentSet<Int>
    /// How many events the replay check remembers. Default 4096.
    var seenLimit: Int { seen.capacity }

    init(requestID: JSONValue?, maxResumes: Int, seenLimit: Int = 4096) {
        self.requestID = requestID
        self.maxResumes = maxResumes
        self.seen = RecentSet(capacity: seenLimit)
    }

    /// One SSE event (or a whole JSON body) arrived; `eventID` is the event's own `id` field
    /// when it had one.
    mutating func received(_ text: String, eventID: String?) -> Action {
        if isDone { return .ignore }
        if let eventID, !eventID.isEmpty {
            var hasher = Hasher()
            hasher.combine(eventID)
            hasher.combine(text)
            let key = hasher.finalize()
            if seen.contains(key) { return .ignore }
            seen.insert(key)
            lastEventID = eventID
        }
        if text.allSatisfy({ $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }) { return .ignore }
        let data = Data(text.utf8)
        guard let value = try? JSONValue(json: data) else {
            return failed(MCPError(.invalidResponse, detail: "a message is not JSON"))
        }
        guard case .object(let object) = value else {
            if case .array = value { return failed(MCPError(.invalidResponse, detail: "a JSON-RPC batch")) }
            return failed(MCPError(.invalidResponse, detail: "a message is not a JSON-RPC object"))
        }
        let message = MCPInbound(value, data: data)
        if object["method"] != nil { return .deliver(message) }
        guard object["result"] != nil || object["error"] != nil else {
            return failed(MCPError(.invalidResponse, detail: "a message is neither request, notification nor response"))
        }
        guard let requestID else { return .deliver(message) }
        guard object["id"] == requestID else {
            return failed(MCPError(.unknownResponseID, detail: "a response on this stream answers another request"))
        }
        isDone = true
        return .complete(message)
    }

    /// The connection ended or was cut; `willReconnect` says whether the client would
    /// reconnect (it sends the processed cursor as `Last-Event-ID`).
    mutating func ended(willReconnect: Bool, error: RealtimeError?) -> End {
        if isDone || requestID == nil { return .finished }
        if willReconnect, let lastEventID, resumes < maxResumes {
            resumes += 1
            return .resume(lastEventID: lastEventID)
        }
        isDone = true
        if let error, error.failureClass == .limit {
            // Not a cut: the answer itself was refused as too large.
            return .fail(MCPError(.transport, detail: error.detail, status: error.status, underlying: error))
        }
        if let error, error.failureClass == .content || error.failureClass == .protocol {
            // Not a cut either: the answer is not what the protocol allows (invalid UTF-8, an
            // encoding that cannot be decoded, a malformed stream).
            return .fail(MCPError(.invalidResponse, detail: error.detail, status: error.status, underlying: error))
        }
        let detail = lastEventID == nil ? "no event id to resume from" : "resumption failed"
        return .fail(MCPError(.streamEnded, detail: detail, status: error?.status, underlying: error))
    }

    /// The caller cancelled or timed the request out: nothing more is delivered.
    mutating func cancel() { isDone = true }

    private mutating func failed(_ error: MCPError) -> Action {
        isDone = true
        return .fail(error)
    }
}

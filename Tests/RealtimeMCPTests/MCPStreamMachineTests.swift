import Foundation
import Realtime
@testable import RealtimeMCP
import Testing

@Suite("MCP stream machine", .timeLimit(.minutes(1)))
struct MCPStreamMachineTests {
    let response = #"{"jsonrpc":"2.0","id":7,"result":{}}"#
    let progress = #"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}"#

    @Test("an id-only priming event with empty data sets the cursor and delivers nothing")
    func priming() {
        var m = MCPStreamMachine(requestID: 7, maxResumes: 2)
        #expect(m.received("", eventID: "p1") == .ignore)
        #expect(m.lastEventID == "p1")
        #expect(m.ended(willReconnect: true, error: nil) == .resume(lastEventID: "p1"))
    }

    @Test("the response completes the stream; what follows is ignored")
    func completes() {
        var m = MCPStreamMachine(requestID: 7, maxResumes: 2)
        #expect(m.received(progress, eventID: nil) == .deliver(MCPInbound(parsing: Data(progress.utf8))!))
        #expect(m.received(response, eventID: nil) == .complete(MCPInbound(parsing: Data(response.utf8))!))
        #expect(m.received(response, eventID: nil) == .ignore)
        #expect(m.ended(willReconnect: true, error: nil) == .finished)
    }

    @Test("a replayed event (same id, same data) is not delivered again; an id-less event after it is")
    func replay() {
        var m = MCPStreamMachine(requestID: 7, maxResumes: 2)
        #expect(m.received(progress, eventID: "1") == .deliver(MCPInbound(parsing: Data(progress.utf8))!))
        #expect(m.received(progress, eventID: "1") == .ignore)
        let other = #"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#
        // WHATWG: an event without an id field carries the last id.
        #expect(m.received(other, eventID: "1") == .deliver(MCPInbound(parsing: Data(other.utf8))!))
    }

    @Test("a stream that ends before the response without an id fails; no resume, no re-POST")
    func endsEarly() {
        var m = MCPStreamMachine(requestID: 7, maxResumes: 2)
        _ = m.received(progress, eventID: nil)
        guard case .fail(let error) = m.ended(willReconnect: true, error: nil) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .streamEnded)
    }

    @Test("resumptions are bounded")
    func boundedResumes() {
        var m = MCPStreamMachine(requestID: 7, maxResumes: 2)
        _ = m.received(progress, eventID: "1")
        #expect(m.ended(willReconnect: true, error: nil) == .resume(lastEventID: "1"))
        #expect(m.ended(willReconnect: true, error: nil) == .resume(lastEventID: "1"))
        guard case .fail(let error) = m.ended(willReconnect: true, error: nil) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .streamEnded)
    }

    @Test("a batch, a foreign response id and non-JSON are typed failures")
    func hostileMessages() {
        func failure(_ text: String) -> MCPError.Code? {
            var m = MCPStreamMachine(requestID: 7, maxResumes: 2)
            if case .fail(let e) = m.received(text, eventID: nil) { return e.code }
            return nil
        }
        #expect(failure("[\(response)]") == .invalidResponse)
        #expect(failure(#"{"jsonrpc":"2.0","id":8,"result":{}}"#) == .unknownResponseID)
        #expect(failure("{not json") == .invalidResponse)
        #expect(failure(#"{"jsonrpc":"2.0","id":7}"#) == .invalidResponse)
    }

    @Test("the server's GET stream delivers responses (a resumed stream may carry one)")
    func serverStream() {
        var m = MCPStreamMachine(requestID: nil, maxResumes: 0)
        #expect(m.received(response, eventID: "3") == .deliver(MCPInbound(parsing: Data(response.utf8))!))
    }

    @Test("the seen-event set stays bounded on an endless stream")
    func boundedMemory() {
        var m = MCPStreamMachine(requestID: 7, maxResumes: 0, seenLimit: 16)
        for i in 0..<32 {
            _ = m.received(progress, eventID: "\(i)")
        }
        // The oldest ids were forgotten: replaying the first is delivered again, the newest is not.
        #expect(m.received(progress, eventID: "0") == .deliver(MCPInbound(parsing: Data(progress.utf8))!))
        #expect(m.received(progress, eventID: "31") == .ignore)
    }
}

@Suite("MCP attempt gate", .timeLimit(.minutes(1)))
struct MCPAttemptGateTests {
    func request(cursor: String? = nil) -> TransportRequest {
        var r = TransportRequest(url: URL(string: "http://127.0.0.1:1/mcp")!)
        r.method = "POST"
        r.body = Array("{}".utf8)
        r.headers = ["Content-Type": "application/json", "Mcp-Method": "tools/call"]
        r.lastEventID = cursor
        return r
    }

    @Test("the POST goes out once; a second attempt without a cursor is refused")
    func once() throws {
        let gate = MCPAttemptGate()
        #expect(try gate.request(for: request()).method == "POST")
        #expect(throws: RealtimeError.self) { try gate.request(for: request()) }
    }

    @Test("after a 401 the headers provider is told, and the POST may go once more")
    func credentials() throws {
        let gate = MCPAttemptGate()
        _ = try gate.request(for: request())
        gate.willAttempt(credentialsRejected: true)
        #expect(try gate.request(for: request()).method == "POST")
        gate.willAttempt(credentialsRejected: false)
        #expect(throws: RealtimeError.self) { try gate.request(for: request()) }
    }

    @Test("an attempt with a cursor is a GET with no body and no request headers")
    func resume() throws {
        let gate = MCPAttemptGate()
        _ = try gate.request(for: request())
        let get = try gate.request(for: request(cursor: "5"))
        #expect(get.method == "GET")
        #expect(get.body == nil)
        #expect(get.headers["Content-Type"] == nil)
        #expect(get.headers["Mcp-Method"] == nil)
        #expect(get.headers["Accept"] == "text/event-stream")
        #expect(get.lastEventID == "5")
    }
}

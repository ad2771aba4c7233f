import Foundation
@testable import RealtimeMCP
import Testing

@Suite("MCP outgoing messages", .timeLimit(.minutes(1)))
struct MCPOutgoingMessageTests {
    @Test("the 2026-07-28 envelope joins what the caller put in _meta")
    func envelope() throws {
        let data = Data(#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":3}}}"#.utf8)
        let message = try MCPOutgoingMessage(data)
        #expect(message.kind == .request)
        #expect(message.name == "echo")
        let wrapped = try JSONValue(json: message.withEnvelope(revision: .v2026_07_28, capabilities: ["roots": [:]], clientInfo: ["name": "t"]))
        let meta = wrapped["params"]?["_meta"]
        #expect(meta?["progressToken"] == 3)
        #expect(meta?["io.modelcontextprotocol/protocolVersion"] == "2026-07-28")
        #expect(meta?["io.modelcontextprotocol/clientCapabilities"] == ["roots": [:]])
        #expect(meta?["io.modelcontextprotocol/clientInfo"]?["name"] == "t")
        #expect(wrapped["params"]?["name"] == "echo")
    }

    @Test("kinds, the cancelled request id, and the Mcp-Name of resources/read")
    func kinds() throws {
        let notification = try MCPOutgoingMessage(Data(#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#.utf8))
        #expect(notification.kind == .notification)
        #expect(notification.cancelledRequestID == 9)
        let response = try MCPOutgoingMessage(Data(#"{"jsonrpc":"2.0","id":"s1","result":{}}"#.utf8))
        #expect(response.kind == .response)
        let read = try MCPOutgoingMessage(Data(#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"res://a"}}"#.utf8))
        #expect(read.name == "res://a")
    }

    @Test("Mcp-Name values that are not printable ASCII go as =?base64?…?=")
    func headerValues() {
        #expect(MCPHeaderValue.encode("echo") == "echo")
        #expect(MCPHeaderValue.encode("héllo") == "=?base64?aMOpbGxv?=")
        #expect(MCPHeaderValue.encode(" edge") == "=?base64?IGVkZ2U=?=")
        #expect(MCPHeaderValue.encode("a\r\nX-Injected: 1").hasPrefix("=?base64?"))
        #expect(MCPHeaderValue.encode("=?base64?x?=") == "=?base64?PT9iYXNlNjQ/eD89?=")
    }
}

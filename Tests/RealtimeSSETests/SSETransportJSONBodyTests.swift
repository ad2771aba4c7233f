#if os(Linux)
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeSSE
import RealtimeTestServer
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `Options.jsonBodyLimit`: a POST's `application/json` or `202` answer (Model Context
/// Protocol Streamable HTTP) instead of an event stream.
@Suite("SSETransport: JSON and 202 answers", .timeLimit(.minutes(1)))
struct SSETransportJSONBodyTests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    func options(limit: Int? = 1 << 20) -> SSEOptions {
        var o = SSEOptions()
        o.jsonBodyLimit = limit
        return o
    }

    @Test("a JSON body is one message, whole, then an end that asks for no reconnect")
    func jsonBody() async throws {
        let body = #"{"jsonrpc":"2.0","id":1,"result":{"text":"héllo"}}"#
        server.setHandler(path: "/json") { w in
            try w.writeHead(status: 200, headers: ["Content-Type": "application/json; charset=utf-8"], framing: .chunked)
            try w.write(String(body.prefix(10)))
            try w.write(String(body.dropFirst(10)))
        }
        let r = await run(SSETransport(request: request(server.url("/json")), options: options()))
        #expect(r.opened.count == 1)
        #expect(r.texts == [body])
        #expect(r.end?.clean == true)
        #expect(r.end?.doNotReconnect == true)
        let plain = await run(SSETransport(request: request(server.url("/json")), options: options(limit: nil)))
        #expect(plain.end?.error?.code == .invalidContentType)
    }

    @Test("202 Accepted is an orderly end with no message; without the option it is an http_status error")
    func accepted() async throws {
        server.setHandler(path: "/accepted") { w in
            try w.writeHead(status: 202, framing: .contentLength(0))
        }
        let r = await run(SSETransport(request: request(server.url("/accepted")), options: options()))
        #expect(r.opened.isEmpty && r.messages.isEmpty)
        #expect(r.end?.clean == true)
        #expect(r.end?.doNotReconnect == true)
        let plain = await run(SSETransport(request: request(server.url("/accepted")), options: options(limit: nil)))
        #expect(plain.end?.error?.code == .httpStatus)
    }

    @Test("a JSON body over the limit is message_too_large; one that is not UTF-8 is invalid_utf8")
    func limits() async throws {
        server.setHandler(path: "/big") { w in
            try w.writeHead(status: 200, headers: ["Content-Type": "application/json"], framing: .chunked)
            try w.write(String(repeating: "x", count: 5000))
        }
        let big = await run(SSETransport(request: request(server.url("/big")), options: options(limit: 1000)))
        #expect(big.messages.isEmpty)
        #expect(big.end?.error?.code == .messageTooLarge)
        server.setHandler(path: "/binary") { w in
            try w.writeHead(status: 200, headers: ["Content-Type": "application/json"], framing: .chunked)
            try w.write([0x22, 0xFF, 0xFE, 0x22])
        }
        let binary = await run(SSETransport(request: request(server.url("/binary")), options: options()))
        #expect(binary.messages.isEmpty)
        #expect(binary.end?.error?.code == .invalidUTF8)
    }
}
#endif

#if os(Linux)
@_spi(Transport) import RealtimeCore
import RealtimeIO
@_spi(Transport) import RealtimeSSE
import RealtimeTestSupport
import RealtimeTestServer
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Compressed event streams (RFC 9110 §8.4): what libcurl decodes is advertised and decoded;
/// anything else is `invalid_content_encoding`, never parsed as text.
@Suite("SSETransport: content encoding", .timeLimit(.minutes(1)))
struct SSETransportCompressionTests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    @Test("Accept-Encoding names every coding the installed libcurl decodes")
    func advertised() async throws {
        _ = await run(SSETransport(request: request(server.url("/sse?count=1"))))
        let accept = try #require(server.requests(path: "/sse").first?.headers["Accept-Encoding"])
        let names = accept.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(names == CurlGlobal.contentEncodings)
        #expect(names.contains("gzip") && names.contains("deflate"))
    }

    @Test("gzip and deflate streams are decoded: every event, in order, multi-byte text intact", arguments: ["gzip", "deflate"])
    func decoded(encoding: String) async throws {
        let r = await run(SSETransport(request: request(server.url("/sse?count=300&utf8=1&encoding=\(encoding)"))))
        #expect(r.opened.first?.headers["Content-Encoding"] == encoding)
        #expect(r.ids == decimalIDs(1...300))
        #expect(r.texts.allSatisfy { $0.hasSuffix(SSEStreamOptions.utf8Suffix) })
        #expect(r.end?.clean == true)
    }

    @Test("an unknown Content-Encoding is invalid_content_encoding before any event", arguments: ["snappy", "gzip, br2", "compress"])
    func unknownEncoding(encoding: String) async throws {
        let name = encoding.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let r = await run(SSETransport(request: request(server.url("/sse?count=5&encoding=\(name)"))))
        #expect(r.messages.isEmpty)
        #expect(r.opened.isEmpty)
        let error = try #require(r.end?.error)
        #expect(error.code == .invalidContentEncoding)
        #expect(error.failureClass == .content)
        #expect(error.status == 200)
    }

    @Test("a body that does not decode as its Content-Encoding says is invalid_content_encoding, never text")
    func corruptBody() async throws {
        server.setHandler(path: "/lying") { w in
            try w.writeHead(status: 200, headers: ["Content-Type": "text/event-stream", "Content-Encoding": "gzip"], framing: .chunked)
            try w.write("id: 1\ndata: not compressed\n\n")
        }
        let r = await run(SSETransport(request: request(server.url("/lying"))))
        #expect(r.messages.isEmpty)
        #expect(r.end?.error?.code == .invalidContentEncoding, "\(String(describing: r.end?.error))")
    }

    @Test("back-pressure holds with gzip: a stalled consumer pauses reading; nothing is lost after")
    func backPressure() async throws {
        let count = 50_000
        let capacity = 32
        // The default idle timeout: that a pause is not silence is the lifecycle suite's test;
        // here a machine loaded enough to hold the server's thread back must not
        // fail a test of bounded buffering.
        let t = SSETransport(request: request(server.url("/sse?count=\(count)&size=100&encoding=gzip")) {
            $0.eventBufferCapacity = capacity
        })
        let tEvents = t.eventStream(capacity: t.request.eventBufferCapacity)
        #expect(await eventually(within: .seconds(20)) { tEvents.bufferedCount >= capacity })
        await WallTime.hold(for: .milliseconds(2000))  // a window for curl and the kernel to overrun the pause
        // At most one decoded write (16 KiB ≈ 140 events of ~117 bytes) beyond capacity.
        #expect(tEvents.bufferedCount <= capacity + 600)
        var ids: [String] = []
        var end: TransportEnd?
        for await e in tEvents {
            switch e {
            case .message(let m): ids.append(m.id ?? "")
            case .ended(let e): end = e
            default: break
            }
        }
        #expect(ids.count == count)
        #expect(ids.first == "1" && ids.last == String(count))
        #expect(end?.clean == true, "\(String(describing: end))")
    }

    @Test("a cut gzip stream resumes with Last-Event-ID on a fresh compressed response")
    func resume() async throws {
        let first = await run(SSETransport(request: request(server.url("/sse?count=200&encoding=gzip&cut=300"))))
        #expect(first.end?.error?.code == .network)
        let last = try #require(first.ids.last)
        #expect(!first.ids.isEmpty && first.ids.count < 200)
        let second = await run(SSETransport(request: request(server.url("/sse?count=200&encoding=gzip")) { $0.lastEventID = last }))
        #expect(first.ids + second.ids == decimalIDs(1...200))
    }
}
#endif

#if os(Linux)
import Glibc
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeSSE
import RealtimeTestSupport
import RealtimeTestServer
import Testing
import Foundation

/// Whether a failed attempt may have delivered its request (``TransportEnd/requestWasDelivered``),
/// which decides whether a POST may be sent again: false only when no byte of the request can
/// have reached the server.
@Suite("SSETransport: request delivery", .timeLimit(.minutes(1)))
struct SSETransportDeliveryTests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    private func post(_ url: URL, connectTimeout: Duration = .seconds(5), _ configure: (inout TransportRequest) -> Void = { _ in }) -> TransportRequest {
        request(url) {
            $0.method = "POST"
            $0.body = Array(#"{"prompt":"hi"}"#.utf8)
            $0.connectTimeout = connectTimeout
            configure(&$0)
        }
    }

    @Test("the server read the POST, then closed, reset or stayed silent: delivered", arguments: [
        ("close", RealtimeError.Code.network), ("reset", .network), ("hold", .connectTimeout),
    ])
    func failedAfterTheRequest(mode: String, code: RealtimeError.Code) async throws {
        // A short timeout only where it is the point: a loaded machine may take a while to close.
        let timeout: Duration = mode == "hold" ? .milliseconds(800) : .seconds(20)
        let r = await run(SSETransport(request: post(server.url("/sse?before_head=\(mode)"), connectTimeout: timeout)))
        let end = try #require(r.end)
        #expect(r.opened.isEmpty)
        #expect(end.error?.code == code, "\(String(describing: end.error))")
        #expect(end.requestWasDelivered, "\(mode)")
        #expect(server.requests(path: "/sse").count == 1)
        #expect(server.requests(path: "/sse").first?.bodyText == #"{"prompt":"hi"}"#)
    }

    @Test("connection refused: not delivered, worded as on WebSocket")
    func refused() async throws {
        let port = unusedPort()
        let r = await run(SSETransport(request: post(URL(string: "http://127.0.0.1:\(port)/sse")!)))
        let end = try #require(r.end)
        #expect(end.error?.code == .network)
        #expect(end.error?.detail == "cannot connect to 127.0.0.1:\(port) (connection refused) [curl 7]")
        #expect(!end.requestWasDelivered)
    }

    @Test("a name that does not resolve: not delivered")
    func dnsFailure() async throws {
        let r = await run(SSETransport(request: post(URL(string: "http://no-such-host.invalid/sse")!)))
        #expect(r.end?.error?.code == .dnsFailure)
        #expect(r.end?.error?.detail?.hasPrefix("cannot resolve no-such-host.invalid") == true)
        #expect(r.end?.requestWasDelivered == false)
    }

    @Test("a TLS handshake that never completes times out before the request: not delivered")
    func connectTimeoutBeforeTheRequest() async throws {
        // Accepts TCP connections and never answers the ClientHello.
        let listener = try SilentListener()
        defer { listener.close() }
        let r = await run(SSETransport(request: post(URL(string: "https://127.0.0.1:\(listener.port)/sse")!, connectTimeout: .milliseconds(500))))
        let end = try #require(r.end)
        #expect(end.error?.code == .connectTimeout)
        #expect(end.error?.detail?.contains("connect to 127.0.0.1:\(listener.port) timed out") == true, "\(String(describing: end.error))")
        #expect(!end.requestWasDelivered)
    }

    @Test("a TLS handshake failure: not delivered")
    func tlsFailure() async throws {
        let certificates = try TestCertificates.shared()
        let tls = TestServer(configuration: .init(tls: .init(certificates: certificates)))
        try tls.start()
        defer { tls.stop() }
        let r = await run(SSETransport(request: post(tls.url("/sse"))))
        #expect(r.end?.error?.code == .tls)
        #expect(r.end?.requestWasDelivered == false)
        #expect(tls.requests.isEmpty)
    }

    @Test("a cancel before the request was sent: not delivered; after: delivered")
    func cancel() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let early = SSETransport(request: post(URL(string: "https://127.0.0.1:\(listener.port)/sse")!))
        let earlyEvents = early.eventStream(capacity: early.request.eventBufferCapacity)
        #expect(await eventually { listener.accepted > 0 })
        early.close()
        var earlyEnd: TransportEnd?
        for await e in earlyEvents { if case .ended(let end) = e { earlyEnd = end } }
        #expect(earlyEnd?.requestWasDelivered == false)

        let late = SSETransport(request: post(server.url("/sse?before_head=hold")))
        let lateEvents = late.eventStream(capacity: late.request.eventBufferCapacity)
        #expect(await eventually { server.requests(path: "/sse").count == 1 })
        late.close()
        var lateEnd: TransportEnd?
        for await e in lateEvents { if case .ended(let end) = e { lateEnd = end } }
        #expect(lateEnd?.requestWasDelivered == true)
    }
}

/// A loopback TCP listener that accepts connections and never reads or writes.
final class SilentListener: @unchecked Sendable {
    let fd: Int32
    let port: UInt16
    private let state = LockedValue((accepted: [Int32](), closed: false))
    private let thread: Thread

    var accepted: Int { state.withLock { $0.accepted.count } }

    struct Failure: Error {}

    init() throws {
        let listenFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listenFD >= 0 else { throw Failure() }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listenFD, $0, len) == 0 && listen(listenFD, 16) == 0 && getsockname(listenFD, $0, &len) == 0
            }
        }
        guard bound else {
            Glibc.close(listenFD)
            throw Failure()
        }
        fd = listenFD
        port = UInt16(bigEndian: addr.sin_port)
        let state = self.state
        thread = Thread {
            while true {
                let client = accept(listenFD, nil, nil)
                if client < 0 { return }
                let keep = state.withLock { s -> Bool in
                    if s.closed { return false }
                    s.accepted.append(client)
                    return true
                }
                if !keep {
                    Glibc.close(client)
                    return
                }
            }
        }
        thread.start()
    }

    func close() {
        let clients = state.withLock { s -> [Int32] in
            s.closed = true
            return s.accepted
        }
        shutdown(fd, Int32(SHUT_RDWR))
        for c in clients { Glibc.close(c) }
        Glibc.close(fd)
    }
}
#endif

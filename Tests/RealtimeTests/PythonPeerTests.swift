import Dispatch
import Foundation
import RealtimeTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Proves that every third-party peer in Tests/Peers starts from `.venv`, reports its port
/// and answers on it, with the raw bytes a client would see (no library code involved, so a
/// failure here is about the environment, not the SDK).
@Suite("Python peers", .timeLimit(.minutes(3)))
struct PythonPeerTests {
    @Test("websockets peer upgrades /echo and echoes a masked text frame")
    func websocketsEcho() async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py")
        let reply = try await exchange(port: peer.port, send: upgradeRequest(path: "/echo") , until: "\r\n\r\n")
        #expect(reply.hasPrefix("HTTP/1.1 101"))
        #expect(reply.lowercased().contains("sec-websocket-accept: s3pplmbitxaq9kygzzhzrbk+xoo="))
        let echoed = try await exchangeBytes(
            port: peer.port,
            send: Array(upgradeRequest(path: "/echo").utf8) + maskedTextFrame("hi"),
            until: { bytes in bytes.count >= 4 && bytes.suffix(4) == [0x81, 0x02, 0x68, 0x69] }
        )
        #expect(Array(echoed.suffix(4)) == [0x81, 0x02, 0x68, 0x69])
        await peer.stop()
        #expect(peer.hasExited)
    }

    @Test("websockets peer answers an unknown path with 404")
    func websocketsNotFound() async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py")
        let reply = try await exchange(port: peer.port, send: upgradeRequest(path: "/nope"), until: "no such path")
        #expect(reply.hasPrefix("HTTP/1.1 404"))
        await peer.stop()
    }

    @Test("aiohttp WebSocket peer upgrades /echo and echoes a masked text frame")
    func aiohttpEcho() async throws {
        let peer = try await PythonPeer.start(script: "ws_aiohttp.py")
        let echoed = try await exchangeBytes(
            port: peer.port,
            send: Array(upgradeRequest(path: "/echo").utf8) + maskedTextFrame("hi"),
            until: { bytes in bytes.count >= 4 && bytes.suffix(4) == [0x81, 0x02, 0x68, 0x69] }
        )
        let head = String(decoding: echoed, as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 101"))
        #expect(Array(echoed.suffix(4)) == [0x81, 0x02, 0x68, 0x69])
        await peer.stop()
    }

    @Test("sse-starlette peer streams events, resumes after Last-Event-ID, and checks the bearer token")
    func starletteEvents() async throws {
        let peer = try await PythonPeer.start(script: "sse_starlette_app.py")
        let stream = try await exchange(port: peer.port, send: getRequest("/events?count=3"), until: "\r\n0\r\n\r\n")
        #expect(stream.hasPrefix("HTTP/1.1 200"))
        #expect(stream.lowercased().contains("content-type: text/event-stream"))
        #expect(stream.contains("id: 3\r\nevent: tick\r\ndata: tick 3") || stream.contains("id: 3\nevent: tick\ndata: tick 3"))

        let resumed = try await exchange(
            port: peer.port,
            send: getRequest("/events?count=5", headers: ["Last-Event-ID: 3"]),
            until: "\r\n0\r\n\r\n"
        )
        #expect(!resumed.contains("tick 3"))
        #expect(resumed.contains("data: tick 4") && resumed.contains("data: tick 5"))

        let denied = try await exchange(port: peer.port, send: getRequest("/secure"), until: "unauthorized\n")
        #expect(denied.hasPrefix("HTTP/1.1 401"))
        let allowed = try await exchange(
            port: peer.port,
            send: getRequest("/secure", headers: ["Authorization: Bearer good"]),
            until: "\r\n0\r\n\r\n"
        )
        #expect(allowed.hasPrefix("HTTP/1.1 200"))

        let body = #"{"prompt": "héllo ☃", "chunk": 2}"#
        let llm = try await exchange(
            port: peer.port,
            send: "POST /llm HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)",
            until: "[DONE]"
        )
        #expect(llm.contains(#""content": "hé""#))
        #expect(llm.contains("data: [DONE]"))

        let noContent = try await exchange(port: peer.port, send: getRequest("/nocontent", close: true), until: nil)
        #expect(noContent.hasPrefix("HTTP/1.1 204"))
        await peer.stop()
    }

    @Test("aiohttp-sse peer streams events and resumes after Last-Event-ID")
    func aiohttpSSEEvents() async throws {
        let peer = try await PythonPeer.start(script: "sse_aiohttp.py")
        let stream = try await exchange(
            port: peer.port,
            send: getRequest("/events?count=4", headers: ["Last-Event-ID: 2"]),
            until: "\r\n0\r\n\r\n"
        )
        #expect(stream.hasPrefix("HTTP/1.1 200"))
        #expect(stream.lowercased().contains("content-type: text/event-stream"))
        #expect(!stream.contains("tick 2"))
        #expect(stream.contains("id: 3") && stream.contains("id: 4"))
        await peer.stop()
    }

    @Test("a peer stops when asked and its port closes")
    func stopClosesPort() async throws {
        let peer = try await PythonPeer.start(script: "sse_aiohttp.py")
        let port = peer.port
        await peer.stop()
        #expect(peer.hasExited)
        await #expect(throws: (any Error).self) {
            _ = try await exchange(port: port, send: getRequest("/events"), until: nil)
        }
    }

    @Test("a missing peer script is an error, not a skip")
    func missingScript() async throws {
        await #expect(throws: PythonPeerError.self) {
            _ = try await PythonPeer.start(script: "no_such_peer.py")
        }
    }
}

// MARK: - Raw loopback exchanges (blocking sockets on a Dispatch thread, 10 s receive timeout)

private struct ExchangeError: Error, CustomStringConvertible {
    let description: String
}

/// The RFC 6455 §1.3 sample key, whose accept value is s3pPLMBiTxaQ9kYGzzhZRbK+xOo=.
private func upgradeRequest(path: String) -> String {
    "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
}

private func getRequest(_ target: String, headers: [String] = [], close: Bool = false) -> String {
    var request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
    for header in headers { request += header + "\r\n" }
    if close { request += "Connection: close\r\n" }
    return request + "\r\n"
}

/// A final text frame from a client, masked with a fixed key (RFC 6455 §5.3).
private func maskedTextFrame(_ text: String) -> [UInt8] {
    let payload = Array(text.utf8)
    precondition(payload.count < 126)
    let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
    return [0x81, 0x80 | UInt8(payload.count)] + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
}

private func exchange(port: Int, send request: String, until marker: String?) async throws -> String {
    let markerBytes = marker.map { Array($0.utf8) }
    let bytes = try await exchangeBytes(port: port, send: Array(request.utf8)) { received in
        guard let markerBytes else { return false }
        return received.count >= markerBytes.count
            && received.withUnsafeBufferPointer { buffer in
                (0...(buffer.count - markerBytes.count)).contains { start in
                    buffer[start..<(start + markerBytes.count)].elementsEqual(markerBytes)
                }
            }
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Connects to 127.0.0.1:`port`, writes `request`, and reads until `done` holds for the
/// bytes received so far, or end of stream; throws on connect failure or a 10 s stall.
private func exchangeBytes(
    port: Int,
    send request: [UInt8],
    until done: @escaping @Sendable ([UInt8]) -> Bool
) async throws -> [UInt8] {
    // Blocking socket I/O: on a thread of its own, never on the threads async code runs on.
    try await offloaded { try blockingExchange(port: port, request: request, done: done) }
}

private func blockingExchange(port: Int, request: [UInt8], done: ([UInt8]) -> Bool) throws -> [UInt8] {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw ExchangeError(description: "socket() failed: errno \(errno)") }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { throw ExchangeError(description: "connect to port \(port) failed: errno \(errno)") }
    var sent = 0
    while sent < request.count {
        let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n > 0 else { throw ExchangeError(description: "send failed: errno \(errno)") }
        sent += n
    }
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while !done(received) {
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 { break }
        guard n > 0 else {
            throw ExchangeError(description: "recv failed (errno \(errno)) after \(received.count) bytes")
        }
        received += chunk[0..<n]
    }
    return received
}

import Dispatch
import Foundation
import RealtimeCore
#if canImport(Glibc)
import Glibc
#endif
#if canImport(CLinux)
import CLinux
#endif

/// One client connection of a ``TestProxy``: reads the request head, checks credentials,
/// connects to the (loopback) origin and relays. Runs on the connection's own thread.
struct TestProxySession {
    let proxy: TestProxy
    let client: Int32
    let wakeFD: Int32

    private var configuration: TestProxy.Configuration { proxy.configuration }

    /// ``TestProxy/Configuration/timeout`` in whole milliseconds, 1 ms … 10 min.
    private var timeoutMilliseconds: Int {
        let (seconds, attoseconds) = configuration.timeout.components
        return Int(min(max(seconds * 1000 + attoseconds / 1_000_000_000_000_000, 1), 600_000))
    }

    struct Head {
        var method: String
        var target: String
        var version: String
        var requestLine: String
        var headers: HTTPHeaders
    }

    func run() {
        guard let (head, leftover) = readHead() else {
            proxy.release(client)
            return
        }
        var record = RecordedProxyRequest(
            method: head.method, target: head.target, requestLine: head.requestLine, headers: head.headers,
            carriedProxyAuthorization: head.headers.contains("Proxy-Authorization"), outcome: .tunnelled)
        record.headers.remove(name: "Proxy-Authorization")
        func refuse(_ status: Int) {
            record.outcome = .refused(status: status)
            proxy.record(record)
            answer(status)
            proxy.release(client)
        }
        if let credentials = configuration.credentials {
            let expected = "Basic " + Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
            guard let given = head.headers["Proxy-Authorization"], Self.sameCredentials(given, expected) else {
                return refuse(407)
            }
        }
        if let status = configuration.refusal { return refuse(status) }

        let isConnect = head.method == "CONNECT"
        guard let (host, port, path) = isConnect ? Self.authority(head.target).map({ ($0.host, $0.port, "") }) : Self.absolute(head.target)
        else { return refuse(400) }
        guard let address = loopbackAddress(for: host) else { return refuse(502) }
        let timeout = Int32(timeoutMilliseconds)
        guard let upstream = try? Socket.connect(numericHost: address, port: port, timeoutMilliseconds: timeout) else {
            return refuse(502)
        }
        guard proxy.adopt(upstream) else {
            proxy.release(client)
            return
        }
        Socket.setNoDelay(upstream)
        var first: [UInt8]
        if isConnect {
            do {
                try send(client, Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8))
            } catch {
                proxy.release(upstream)
                proxy.release(client)
                return
            }
            first = leftover
        } else {
            // Origin-form request line (RFC 9112 §3.2.1); the hop-by-hop proxy fields stay here.
            var text = "\(head.method) \(path) \(head.version)\r\n"
            for field in head.headers.fields {
                let name = field.name.lowercased()
                if name == "proxy-authorization" || name == "proxy-connection" { continue }
                text += "\(field.name): \(field.value)\r\n"
            }
            first = Array((text + "\r\n").utf8) + leftover
            record.outcome = .forwarded
        }
        proxy.record(record)
        if !first.isEmpty, (try? send(upstream, first)) == nil {
            proxy.release(upstream)
            proxy.release(client)
            return
        }
        relay(upstream)
    }

    // MARK: Request head

    /// The head and any bytes read past it; nil (after answering 400 where it makes sense)
    /// when the client closed, timed out or sent something too large or malformed.
    private func readHead() -> (Head, [UInt8])? {
        var buffer: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 4096)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeoutMilliseconds) * 1_000_000
        while true {
            if let end = HTTPRequestReader.find([13, 10, 13, 10], in: buffer, from: 0) {
                guard let head = Self.parse(buffer[..<end]) else {
                    proxy.record(RecordedProxyRequest(method: "", target: "", requestLine: "", headers: HTTPHeaders(),
                        carriedProxyAuthorization: false, outcome: .refused(status: 400)))
                    answer(400)
                    return nil
                }
                return (head, Array(buffer[(end + 4)...]))
            }
            guard buffer.count <= configuration.maxHeadSize else {
                answer(400)
                return nil
            }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return nil }
            let ready = Socket.waitReadable(client, orWake: wakeFD, timeoutMilliseconds: Int32((deadline - now) / 1_000_000) + 1)
            if ready.woken || !ready.ready { return nil }
            let n = scratch.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            buffer.append(contentsOf: scratch[0..<n])
        }
    }

    static func parse(_ bytes: ArraySlice<UInt8>) -> Head? {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)[...]
        guard let requestLine = lines.popFirst() else { return nil }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, parts[2].hasPrefix("HTTP/1.") else { return nil }
        var headers = HTTPHeaders()
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.add(name: String(line[..<colon]), value: String(line[line.index(after: colon)...]).trimmingASCIISpaces)
        }
        return Head(method: String(parts[0]), target: String(parts[1]), version: String(parts[2]),
                    requestLine: String(requestLine), headers: headers)
    }

    /// The auth scheme is case-insensitive (RFC 9110 §11.1), the token68 is not.
    static func sameCredentials(_ given: String, _ expected: String) -> Bool {
        let g = given.split(separator: " ", maxSplits: 1)
        let e = expected.split(separator: " ", maxSplits: 1)
        return g.count == 2 && g[0].lowercased() == e[0].lowercased() && String(g[1]).trimmingASCIISpaces == e[1]
    }

    // MARK: Targets

    /// `host:port` or `[v6]:port` (RFC 9110 §9.3.6, authority-form).
    static func authority(_ text: Substring) -> (host: String, port: Int)? {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (1...65535).contains(port) else { return nil }
            return (String(host), port)
        }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65535).contains(port), colon > text.startIndex
        else { return nil }
        return (String(text[..<colon]), port)
    }

    static func authority(_ text: String) -> (host: String, port: Int)? { authority(text[...]) }

    /// `http://host[:port]/path?query` (RFC 9112 §3.2.2, absolute-form).
    static func absolute(_ target: String) -> (host: String, port: Int, path: String)? {
        guard target.lowercased().hasPrefix("http://") else { return nil }
        let rest = target.dropFirst(7)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let hostPort = rest[..<slash]
        let path = slash == rest.endIndex ? "/" : String(rest[slash...])
        if let parsed = authority(hostPort) { return (parsed.host, parsed.port, path) }
        guard !hostPort.isEmpty, !hostPort.contains(":") || hostPort.hasPrefix("[") else { return nil }
        let host = hostPort.hasPrefix("[") ? String(hostPort.dropFirst().dropLast()) : String(hostPort)
        return (host, 80, path)
    }

    /// The loopback IP literal to connect to for `host`, nil when it is not a loopback
    /// destination (the proxy never leaves the machine).
    private func loopbackAddress(for host: String) -> String? {
        let name = host.lowercased()
        if let mapped = configuration.hosts[name] ?? configuration.hosts[host] { return Self.isLoopbackLiteral(mapped) ? mapped : nil }
        if name == "localhost" { return "127.0.0.1" }
        return Self.isLoopbackLiteral(name) ? name : nil
    }

    static func isLoopbackLiteral(_ host: String) -> Bool {
        if host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    // MARK: Answers and relay

    private static func reason(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 403: return "Forbidden"
        case 407: return "Proxy Authentication Required"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        default: return "Refused"
        }
    }

    /// Answers `status` with an empty body and closes the writing side, then reads (briefly,
    /// boundedly) what the client still sends, so the close is a FIN and not an RST that
    /// could destroy the answer before the client read it.
    private func answer(_ status: Int) {
        var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        if status == 407 { text += "Proxy-Authenticate: Basic realm=\"test-proxy\"\r\n" }
        text += "Content-Length: 0\r\nConnection: close\r\n\r\n"
        try? send(client, Array(text.utf8))
        shutdown(client, Int32(SHUT_WR))
        var scratch = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 {
            let ready = Socket.waitReadable(client, orWake: wakeFD, timeoutMilliseconds: 200)
            guard ready.ready, !ready.woken else { return }
            let n = scratch.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return }
        }
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try Socket.sendAll(fd, $0) }
    }

    /// Relays both ways until both directions ended, then closes both sockets.
    private func relay(_ upstream: Int32) {
        let other = DispatchSemaphore(value: 0)
        let client = self.client
        proxy.spawn {
            Self.pump(from: upstream, to: client)
            other.signal()
        }
        Self.pump(from: client, to: upstream)
        other.wait()
        proxy.release(upstream)
        proxy.release(client)
    }

    /// Copies `from` → `to` through a 16 KiB buffer as bytes arrive (no buffering beyond one
    /// read). End of stream is passed on as a half-close; an error shuts both sockets down,
    /// which also ends the other direction.
    private static func pump(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n == 0 {
                shutdown(to, Int32(SHUT_WR))
                return
            }
            if n < 0 { break }
            let sent = buffer.withUnsafeBytes { raw -> Bool in
                (try? Socket.sendAll(to, UnsafeRawBufferPointer(rebasing: raw[0..<n]))) != nil
            }
            if !sent { break }
        }
        shutdown(from, Int32(SHUT_RDWR))
        shutdown(to, Int32(SHUT_RDWR))
    }
}

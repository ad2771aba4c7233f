#if os(Linux)
import Foundation

/// One GET to a peer on loopback (``TestServerRawClient``, `Connection: close`): how the tests read a peer's
/// counters and records. Not `URLSession`: FoundationNetworking's libcurl use loses four small
/// allocations per request on this toolchain, which LeakSanitizer reports as leaks of the
/// test process (ours never go through it).
public enum LoopbackHTTP {
    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }

    /// The body of `url`'s answer, which must be `200`; waits at most `timeout` for each read.
    public static func get(_ url: URL, timeout: Duration = .seconds(60)) async throws -> Data {
        guard url.scheme == "http", let host = url.host, let port = url.port.flatMap(UInt16.init(exactly:)) else {
            throw Failed(description: "not an http URL with a port: \(url)")
        }
        let target = url.path.isEmpty ? "/" : url.path + (url.query.map { "?" + $0 } ?? "")
        let response = try await offloaded {
            let client = try TestServerRawClient(
                port: port, ipv6: host.contains(":"), readTimeoutSeconds: Int(timeout.components.seconds))
            client.request(target, headers: ["Connection: close"])
            return client.readToEnd()
        }
        guard response.end == .eof, response.statusCode == 200 else {
            throw Failed(description: "\(url) answered \(response.head.prefix { $0 != "\r" }) (end: \(response.end))")
        }
        return Data(response.body)
    }
}
#endif

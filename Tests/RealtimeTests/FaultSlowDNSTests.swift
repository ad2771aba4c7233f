#if os(Linux)
import Foundation
import Glibc
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// An SSE attempt that gives up while its host name is still resolving (its connect timeout
/// passes first) ends at once: the event loop never waits for the resolver, whose lookup
/// blocks for as long as an unresponsive DNS server makes it (30 s here). Every connection
/// of a process shares that loop, so one slow name would otherwise stall them all.
///
/// `rtcat` runs in a mount namespace of its own (`unshare -m`) whose `/etc/resolv.conf`
/// names a DNS server that never answers: a UDP socket this test binds on loopback and
/// never reads. Root only (a mount namespace, port 53).
@Suite(.serialized, .timeLimit(.minutes(2))) struct FaultSlowDNSTests {
    @Test func aConnectTimeoutDuringASlowLookupEndsWithoutWaitingForIt() async throws {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            print("SKIPPED (slow DNS): needs root and unshare(1) for a mount namespace; run `make test` as root (CI does)")
            return
        }
        guard let rtcat = BuiltExecutable.url(named: "rtcat") else {
            Issue.record("rtcat binary not found; run `swift build` first")
            return
        }
        let dns = try SilentDNSServer()
        defer { dns.close() }
        let resolvConf = FileManager.default.temporaryDirectory.appendingPathComponent("resolv-silent-\(getpid()).conf")
        try "nameserver \(dns.address)\noptions timeout:30 attempts:1\n".write(to: resolvConf, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: resolvConf) }
        let probe = try await offloaded {
            try SpawnedProcess.run("/usr/bin/unshare", ["-m", "sh", "-c", "mount --bind \(resolvConf.path) /etc/resolv.conf"], timeout: .seconds(20))
        }
        guard probe.termination?.status == 0 else {
            print("SKIPPED (slow DNS): cannot make a mount namespace here: \(probe.errorText)")
            return
        }
        let script = "mount --bind \(resolvConf.path) /etc/resolv.conf && exec \(rtcat.path) --connect-timeout 1 --max-retries 1 http://slow-dns.test/sse"
        // Two attempts (1 s each, and the backoff between them): bounded far beyond that,
        // below the 30 s lookup the loop would wait for if an attempt's end joined the resolver.
        let run = try await offloaded {
            try SpawnedProcess.run("/usr/bin/unshare", ["-m", "sh", "-c", script], timeout: .seconds(20))
        }
        #expect(run.termination != nil, "rtcat waited for the lookup: \(run.outputText) \(run.errorText)")
        #expect(run.termination?.status == 1, "\(run.errorText)")
        // The first attempt's end, then the second's: both at their connect timeout.
        #expect(run.outputText.contains("connect_timeout: connect to slow-dns.test:80 timed out"), "\(run.outputText)")
        #expect(run.outputText.contains("gave up after 2 attempt(s); last: connect_timeout"), "\(run.outputText)")
    }
}

/// A UDP socket on a loopback address of its own, port 53, that never answers: a DNS server
/// that swallows every query.
private final class SilentDNSServer: Sendable {
    let address: String
    private let fd: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failed(description: "socket: errno \(errno)") }
        // A random 127/8 address: no other test binds it.
        let address = "127.\(UInt8.random(in: 1...254)).\(UInt8.random(in: 1...254)).\(UInt8.random(in: 2...254))"
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = in_port_t(53).bigEndian
        inet_pton(AF_INET, address, &sin.sin_addr)
        let rc = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            Glibc.close(fd)
            throw Failed(description: "bind \(address):53: errno \(errno)")
        }
        self.fd = fd
        self.address = address
    }

    func close() { Glibc.close(fd) }

    struct Failed: Error, CustomStringConvertible {
        var description: String
    }
}
#endif

#if os(Linux)
import Glibc
import RealtimeCore
import RealtimeSSE
import Testing

/// The socket options the SSE transport sets on libcurl's socket itself: the keep-alive probe
/// count and `TCP_USER_TIMEOUT`, packed into the callback's pointer argument.
@Suite struct SocketTuningTests {
    @Test func packsBothSettingsAndNeither() {
        let both = SocketTuning(keepAliveCount: 9, userTimeout: .milliseconds(1500))
        #expect(both.userTimeoutMilliseconds == 1500 && both.keepAliveCount == 9)
        let neither = SocketTuning(keepAliveCount: nil, userTimeout: nil)
        #expect(neither.bits == 0)
        let countOnly = SocketTuning(keepAliveCount: 1000, userTimeout: nil)
        #expect(countOnly.userTimeoutMilliseconds == 0 && countOnly.keepAliveCount == 255)
        #expect(SocketTuning(bits: both.bits).keepAliveCount == 9)
    }

    @Test func appliesTheCountAndTheUserTimeoutToASocket() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        SocketTuning(keepAliveCount: 7, userTimeout: .seconds(2)).apply(to: fd)
        #expect(Self.option(fd, TCP_KEEPCNT) == 7)
        #expect(Self.option(fd, TCP_USER_TIMEOUT) == 2000)
    }

    @Test func keepAliveDurationsBecomeWholeSecondsOfAtLeastOne() {
        let k = TCPKeepAlive(idle: .milliseconds(1900), interval: .milliseconds(200), count: 0)
        #expect(k.idleSeconds == 1 && k.intervalSeconds == 1 && k.probeCount == 1)
        #expect(TCPKeepAlive().idleSeconds == 30 && TCPKeepAlive().intervalSeconds == 10)
    }

    private static func option(_ fd: Int32, _ name: Int32) -> Int32 {
        var value: Int32 = -1
        var size = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, Int32(IPPROTO_TCP), name, &value, &size)
        return value
    }
}
#endif

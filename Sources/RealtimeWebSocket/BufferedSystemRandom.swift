#if canImport(Glibc)
import Glibc
#endif

/// The operating system's CSPRNG, read up to 512 bytes at a time.
///
/// Masking keys must be unpredictable (RFC 6455 §5.3, §10.3), so they come from the system
/// generator, but one `getrandom(2)` call per frame showed up in echo profiles; reading in
/// bulk keeps the same source at a 64th of the calls. The buffer starts at 8 words and
/// doubles with each refill up to 64, so a connection that only pings now and then keeps 64
/// bytes, not 512. Not shared: each encoder owns one.
struct BufferedSystemRandom: RandomNumberGenerator, Sendable {
    private var words: [UInt64] = []
    private var index = 0
    private static let maxWords = 64

    mutating func next() -> UInt64 {
        if index == words.count { refill() }
        defer { index += 1 }
        return words[index]
    }

    private mutating func refill() {
        let count = min(Self.maxWords, max(8, words.count * 2))
        if count != words.count { words = [UInt64](repeating: 0, count: count) }
        #if canImport(Glibc)
        // glibc's arc4random_buf reads the kernel CSPRNG (getrandom) and never fails.
        words.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
        #else
        var system = SystemRandomNumberGenerator()
        for i in words.indices { words[i] = system.next() }
        #endif
        index = 0
    }
}

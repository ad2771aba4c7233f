#if canImport(CZlib)
import CZlib

/// Compresses a response body as it is written, for `Content-Encoding: gzip` or `deflate`
/// (RFC 9110 §8.4.1: gzip is RFC 1952, deflate the zlib format of RFC 1950). Each
/// ``encode(_:)`` ends with a sync flush, so what was written so far can be decoded at once:
/// events are not held back by the compressor.
///
/// Not thread-safe: it belongs to the connection's thread.
package final class ContentEncoder {
    /// The `Content-Encoding` value this encoder produces.
    package let name: String
    private var stream = z_stream()

    /// nil for a coding other than `gzip` and `deflate`.
    package convenience init?(name: String) {
        switch name {
        case "gzip": self.init(name: name, windowBits: 15 + 16)
        case "deflate": self.init(name: name, windowBits: 15)
        default: return nil
        }
    }

    /// A raw DEFLATE stream without the zlib wrapper: the payload format of WebSocket
    /// permessage-deflate (RFC 7692 §7.2.1: each message ends with a sync flush, whose
    /// `00 00 FF FF` tail the sender removes), for tests that play a compressing server.
    package static func permessageDeflate() -> ContentEncoder? {
        ContentEncoder(name: "permessage-deflate", windowBits: -15)
    }

    private init?(name: String, windowBits: Int32) {
        self.name = name
        guard rt_deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY) == Z_OK else {
            return nil
        }
    }

    deinit {
        deflateEnd(&stream)
    }

    /// The compressed form of `bytes`, flushed to a byte boundary.
    package func encode(_ bytes: [UInt8]) -> [UInt8] {
        run(bytes, flush: Z_SYNC_FLUSH)
    }

    /// The end of the compressed stream (and the gzip trailer).
    package func finish() -> [UInt8] {
        run([], flush: Z_FINISH)
    }

    private func run(_ input: [UInt8], flush: Int32) -> [UInt8] {
        var output: [UInt8] = []
        var input = input
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = UInt32(source.count)
            repeat {
                let produced: Int = chunk.withUnsafeMutableBufferPointer { target in
                    stream.next_out = target.baseAddress
                    stream.avail_out = UInt32(target.count)
                    _ = deflate(&stream, flush)
                    return target.count - Int(stream.avail_out)
                }
                output += chunk[..<produced]
            } while stream.avail_out == 0
            stream.next_in = nil
        }
        return output
    }
}

@available(*, unavailable)
extension ContentEncoder: Sendable {}
#endif

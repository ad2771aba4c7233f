#if os(Linux)
import Glibc
import CLinux

/// One socket address returned by `getaddrinfo(3)`, ready for `socket(2)` + `connect(2)`.
struct ResolvedAddress: Sendable {
    var family: Int32
    var storage: sockaddr_storage
    var length: socklen_t

    /// Numeric form (`127.0.0.1`, `::1`) for error details.
    var numericHost: String {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var copy = storage
        let rc = withUnsafePointer(to: &copy) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard rc == 0 else { return "?" }
        return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Resolves `host:port` with `getaddrinfo`, which blocks: call it off the loop thread.
    /// Addresses come back in the resolver's preferred order (RFC 6724), which connect tries
    /// one after the other.
    static func resolve(host: String, port: Int) -> Result<[ResolvedAddress], DNSError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        hints.ai_flags = AI_ADDRCONFIG
        if host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) {
            // Literals must not depend on which address families are configured (a
            // loopback-only machine has no "configured" IPv6 for AI_ADDRCONFIG).
            hints.ai_flags = AI_NUMERICHOST
        }
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            return .failure(DNSError(message: String(cString: gai_strerror(rc))))
        }
        defer { freeaddrinfo(first) }
        var result: [ResolvedAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let ai = cursor {
            if let addr = ai.pointee.ai_addr, Int(ai.pointee.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { dst in
                    dst.copyMemory(from: UnsafeRawBufferPointer(start: addr, count: Int(ai.pointee.ai_addrlen)))
                }
                result.append(ResolvedAddress(family: ai.pointee.ai_family, storage: storage, length: ai.pointee.ai_addrlen))
            }
            cursor = ai.pointee.ai_next
        }
        if result.isEmpty { return .failure(DNSError(message: "no address")) }
        return .success(result)
    }

    struct DNSError: Error, Sendable {
        var message: String
    }
}
#endif

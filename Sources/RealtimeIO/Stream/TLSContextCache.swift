#if os(Linux)
import COpenSSL
@_spi(Transport) import RealtimeCore

/// OpenSSL client contexts (`SSL_CTX`), one per ``TLSConfiguration``, shared by every
/// connection made with that configuration.
///
/// Why: building a context costs milliseconds with OpenSSL 3 (algorithm fetches, the trust
/// store and certificate files loaded and parsed) and keeps its own copy of the trust store,
/// so a context per connection made opening a thousand `wss` connections take seconds and
/// each of them hold its own store. A context is read-only once built, which OpenSSL
/// allows to share between threads.
///
/// Files (trust roots, client certificate and key) are read when a context is built; a
/// context is rebuilt after ``maxAge`` so a renewed certificate file is picked up. At most
/// ``capacity`` configurations are kept (the oldest goes first); a context stays alive as
/// long as a connection uses it.
final class TLSContextCache: Sendable {
    static let shared = TLSContextCache()

    /// How long a context is reused before the files are read again.
    static let maxAge: Duration = .seconds(600)
    static let capacity = 16

    private struct Entry {
        /// The `SSL_CTX` address; the cache owns one reference.
        var context: UInt
        var built: ContinuousClock.Instant
    }

    private let entries = LockedValue<[TLSConfiguration: Entry]>([:])

    deinit {
        entries.withLock { for e in $0.values { SSL_CTX_free(OpaquePointer(bitPattern: e.context)) } }
    }

    /// A context for `configuration`, with one reference for the caller (release it with
    /// `SSL_CTX_free` once `SSL_new` has taken its own).
    func context(for configuration: TLSConfiguration) throws(RealtimeError) -> OpaquePointer {
        let now = ContinuousClock.now
        let cached: OpaquePointer? = entries.withLock { table in
            guard let e = table[configuration], e.built.duration(to: now) < Self.maxAge,
                let ctx = OpaquePointer(bitPattern: e.context)
            else { return nil }
            SSL_CTX_up_ref(ctx)
            return ctx
        }
        if let cached { return cached }
        let built = try TLSSession.makeContext(configuration)
        let evicted: [UInt] = entries.withLock { table in
            var gone: [UInt] = []
            if let old = table[configuration] { gone.append(old.context) }
            if table[configuration] == nil, table.count >= Self.capacity,
                let oldest = table.min(by: { $0.value.built < $1.value.built })
            {
                gone.append(oldest.value.context)
                table[oldest.key] = nil
            }
            SSL_CTX_up_ref(built)
            table[configuration] = Entry(context: UInt(bitPattern: built), built: now)
            return gone
        }
        // Connections still using an evicted context hold their own references.
        for address in evicted { SSL_CTX_free(OpaquePointer(bitPattern: address)) }
        return built
    }
}
#endif

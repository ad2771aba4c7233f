#if os(Linux)
import CCurl

/// Process-wide libcurl initialisation, done once and thread-safely.
///
/// `curl_global_init` is not thread-safe in older libcurl releases and must run before any
/// other curl call; a Swift `static let` is initialised exactly once under a lock
/// (`swift_once`), so every path into curl goes through ``ensureInitialized()``. It never
/// installs signal handlers (the SDK also sets `CURLOPT_NOSIGNAL` on every transfer).
package enum CurlGlobal {
    private static let initResult: CURLcode = curl_global_init(rt_curl_global_default())

    /// Initialises libcurl if that has not happened yet. Returns false if it failed.
    @discardableResult
    package static func ensureInitialized() -> Bool {
        initResult == CURLE_OK
    }

    /// Whether the linked libcurl can speak HTTP/2.
    package static let supportsHTTP2: Bool = {
        ensureInitialized()
        guard let info = rt_curl_version_info() else { return false }
        return info.pointee.features & CURL_VERSION_HTTP2 != 0
    }()

    /// The content codings the linked libcurl decodes, in the order advertised in
    /// `Accept-Encoding`: `gzip` and `deflate` with zlib, `br` with brotli, `zstd` with zstd
    /// (from `curl_version_info` features).
    package static let contentEncodings: [String] = {
        ensureInitialized()
        guard let features = rt_curl_version_info()?.pointee.features else { return [] }
        var names: [String] = []
        if features & CURL_VERSION_LIBZ != 0 { names += ["gzip", "deflate"] }
        if features & CURL_VERSION_BROTLI != 0 { names.append("br") }
        if features & CURL_VERSION_ZSTD != 0 { names.append("zstd") }
        return names
    }()

    /// The linked libcurl's version, e.g. `7.88.1`.
    package static let version: String = {
        ensureInitialized()
        guard let info = rt_curl_version_info(), let v = info.pointee.version else { return "unknown" }
        return String(cString: v)
    }()
}
#endif

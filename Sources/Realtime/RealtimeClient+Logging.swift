#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RealtimeClient {
    /// The URL as it may appear in logs: scheme, host, port and path; never user info or
    /// the query (either may hold a token).
    var redactedURL: String {
        var s = "\(url.scheme ?? "")://\(url.host ?? "")"
        if let port = url.port { s += ":\(port)" }
        return s + url.path
    }

    func log(_ level: RealtimeLogLevel, _ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        guard let handler = configuration.logHandler, level >= configuration.logLevel else { return }
        var m = metadata()
        m["url"] = redactedURL
        m["transport"] = transportKind.description
        handler.log(level: level, message: message(), metadata: m)
    }
}

import Foundation
import RealtimeTestSupport

extension PythonPeer {
    /// `ws://127.0.0.1:PORT<path>` (or another scheme).
    func url(_ path: String, scheme: String = "ws") -> URL {
        url(scheme: scheme, path: path)
    }
}

import Foundation

// TEMPORARY until Tests/Support/PythonPeer lands.
final class TempPeer: @unchecked Sendable {
    let process = Process()
    let port: Int
    private let stdinPipe = Pipe()

    init(script: String, arguments: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: "/work/wt-peers-ci/.venv/bin/python")
        process.arguments = ["/work/wt-peers-ci/Tests/Peers/\(script)"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = stdinPipe
        try process.run()
        var line = ""
        while !line.hasSuffix("\n") {
            let d = out.fileHandleForReading.availableData
            if d.isEmpty { break }
            line += String(decoding: d, as: UTF8.self)
        }
        port = Int(line.split(separator: " ")[1].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    func url(_ path: String, scheme: String = "ws") -> URL { URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")! }

    deinit {
        process.terminate()
    }
}

import Foundation

/// Tests/Peers/scale_peer.py in a child process: the server of the `scale` suite, outside
/// this process so that its memory never counts in the client's figures. It takes commands
/// on its standard input (`trickle MS SIZE`, `heartbeat MS`, `quiet`, `stats`), one reply
/// line each, and exits when its standard input closes.
final class ScalePeer {
    let process: Process
    let port: Int
    private let input: FileHandle
    private let output: FileHandle

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts the peer; `tls` gives the certificate and key it serves (TLS on every path).
    /// `script` picks another peer of Tests/Peers with the same launch contract (`h2_sse.py`
    /// for the HTTP/2 case), which takes no commands.
    init(tls: (certificate: String, key: String)? = nil, script: String = "scale_peer.py", arguments extra: [String] = []) throws {
        let root = FileManager.default.currentDirectoryPath
        let venv = root + "/.venv/bin/python"
        let python = FileManager.default.isExecutableFile(atPath: venv) ? venv : "/usr/bin/env"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        var arguments = python == venv ? [] : ["python3"]
        arguments += [root + "/Tests/Peers/" + script, "--host", "127.0.0.1"] + extra
        if let tls { arguments += ["--tls-cert", tls.certificate, "--tls-key", tls.key] }
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: root + "/Tests/Peers")
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        self.process = process
        self.input = stdin.fileHandleForWriting
        self.output = stdout.fileHandleForReading
        let first = Self.readLine(output)
        guard first.hasPrefix("PORT "), let port = Int(first.dropFirst(5)) else {
            process.terminate()
            throw Failure(description: "the scale peer did not start: '\(first)' (run from the package root; Python 3 needed)")
        }
        self.port = port
    }

    deinit { stop() }

    /// Sends one command and returns the peer's reply line.
    @discardableResult
    func command(_ line: String) throws -> String {
        try input.write(contentsOf: Data((line + "\n").utf8))
        let reply = Self.readLine(output)
        if reply.isEmpty || reply.hasPrefix("ERROR") { throw Failure(description: "scale peer: '\(line)' -> '\(reply)'") }
        return reply
    }

    /// The peer's counters: open connections, events sent, its CPU seconds.
    func stats() throws -> (open: Int, sent: Int, cpu: Double) {
        let fields = try command("stats").split(separator: " ").dropFirst().reduce(into: [String: Substring]()) {
            let pair = $1.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { $0[String(pair[0])] = pair[1] }
        }
        return (Int(fields["open"] ?? "") ?? 0, Int(fields["sent"] ?? "") ?? 0, Double(fields["cpu"] ?? "") ?? 0)
    }

    func stop() {
        guard process.isRunning else { return }
        try? input.close()
        process.waitUntilExit()
    }

    private static func readLine(_ handle: FileHandle) -> String {
        var line: [UInt8] = []
        while let byte = try? handle.read(upToCount: 1)?.first, byte != 10 { line.append(byte) }
        return String(decoding: line, as: UTF8.self)
    }
}

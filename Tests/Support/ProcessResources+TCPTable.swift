#if os(Linux)
import Foundation

extension ProcessResources {
    /// The kernel's TCP sockets on `port` (local or remote), one line each from
    /// `/proc/net/tcp{,6}`: addresses, state, queues (a listener's receive queue is its
    /// accept backlog) and whether this process holds the socket. A test that waited in vain
    /// for a connection records it, so a failure says whether the listener was there, full,
    /// or gone, and whether the client's SYN was still waiting.
    public static func tcpTable(port: UInt16) -> String {
        let suffix = ":" + String(port, radix: 16, uppercase: true).leftPadded(to: 4)
        let ours = Set(descriptorTable.values.compactMap { link -> Substring? in
            guard link.hasPrefix("socket:["), link.hasSuffix("]") else { return nil }
            return link.dropFirst("socket:[".count).dropLast()
        })
        var lines: [String] = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = procText(table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                // sl, local, remote, st, tx:rx, tr:when, retrnsmt, uid, timeout, inode
                let fields = line.split(separator: " ")
                guard fields.count > 9, fields[1].hasSuffix(suffix) || fields[2].hasSuffix(suffix) else { continue }
                let state = tcpStates[String(fields[3])] ?? String(fields[3])
                let owner = fields[9] == "0" ? "no descriptor" : ours.contains(fields[9]) ? "this process" : "another process"
                lines.append("\(fields[1]) → \(fields[2]) \(state) tx:rx \(fields[4]) retransmits \(fields[6]) (\(owner))")
            }
        }
        return lines.isEmpty ? "no TCP socket on port \(port)" : lines.joined(separator: "\n")
    }

    private static let tcpStates = [
        "01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1", "05": "FIN_WAIT2",
        "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT", "09": "LAST_ACK", "0A": "LISTEN", "0B": "CLOSING",
    ]
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
#endif

#if os(Linux)
import Foundation

extension ProcessResources {
    /// Descriptors of this process that are TCP sockets with remote port `port` (any state:
    /// connecting, open, closing), from `/proc/net/tcp{,6}` matched by inode against
    /// `/proc/self/fd`. Unlike ``openDescriptors`` it does not move with whatever else the
    /// process is doing, so a test can check that one connection released its socket while
    /// other suites open and close theirs.
    public static func tcpSocketDescriptors(toPort port: UInt16) -> Int {
        let inodes = Set(descriptorTable.values.compactMap { link -> Substring? in
            guard link.hasPrefix("socket:["), link.hasSuffix("]") else { return nil }
            return link.dropFirst("socket:[".count).dropLast()
        })
        var count = 0
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = procText(table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                // sl, local, remote, st, tx:rx, tr:when, retrnsmt, uid, timeout, inode
                guard fields.count > 9, let colon = fields[2].lastIndex(of: ":"),
                      UInt16(fields[2][fields[2].index(after: colon)...], radix: 16) == port,
                      fields[9] != "0", inodes.contains(fields[9]) else { continue }
                count += 1
            }
        }
        return count
    }
}
#endif

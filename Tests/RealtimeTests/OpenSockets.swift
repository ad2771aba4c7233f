#if os(Linux)
import Foundation
import Glibc
import RealtimeTestSupport

/// This process's TCP sockets, found through `/proc`: the descriptors under `/proc/self/fd`
/// that are sockets, matched by inode with the connections of `/proc/net/tcp` and `tcp6`.
enum OpenSockets {
    /// The descriptors of this process's TCP connections whose remote port is `port`.
    static func connected(toPort port: UInt16) -> [Int32] {
        let inodes = Set(["/proc/net/tcp", "/proc/net/tcp6"].flatMap { remoteInodes(in: $0, port: port) })
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.compactMap { name -> Int32? in
            guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                  link.hasPrefix("socket:["), let inode = UInt64(link.dropFirst(8).dropLast()),
                  inodes.contains(inode) else { return nil }
            return Int32(name)
        }
    }

    /// Inodes of the table's connections to `port` (`rem_address` is `HEXADDR:HEXPORT`).
    private static func remoteInodes(in table: String, port: UInt16) -> [UInt64] {
        guard let text = ProcessResources.procText(table) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count > 9, let remotePort = fields[2].split(separator: ":").last,
                  UInt16(remotePort, radix: 16) == port else { return nil }
            return UInt64(fields[9])
        }
    }
}
#endif

/// What the kernel's routing tables say about usable paths, built from NETLINK_ROUTE dump
/// replies (rtnetlink(7)): links, addresses and routes. Sans-I/O and platform-neutral (the
/// message layouts are the Linux ABI, decoded by hand), so tests feed it byte buffers.
///
/// An interface is *usable* when it is up and running (`IFF_UP`, `IFF_RUNNING`), not a
/// loopback, has an address of global scope, and at least one unicast route (outside the
/// `local` table) leaves through it. The network is reachable when one interface is usable.
package struct NetlinkRouteSnapshot: Sendable, Hashable {
    package struct Link: Sendable, Hashable {
        package var index: Int32
        package var name: String
        package var flags: UInt32
    }

    package private(set) var links: [Int32: Link] = [:]
    /// Global-scope addresses per interface index, as `family/prefix:bytes` keys.
    package private(set) var addresses: [Int32: Set<String>] = [:]
    /// Unicast routes per output interface index, as `family/table/dst/len` keys.
    package private(set) var routes: [Int32: Set<String>] = [:]

    package init() {}

    // Linux ABI constants (linux/rtnetlink.h, linux/if.h).
    static let rtmNewLink: UInt16 = 16, rtmNewAddr: UInt16 = 20, rtmNewRoute: UInt16 = 24
    static let nlmsgDone: UInt16 = 3, nlmsgError: UInt16 = 2
    static let iffUp: UInt32 = 0x1, iffLoopback: UInt32 = 0x8, iffRunning: UInt32 = 0x40
    static let iflaIfname: UInt16 = 3
    static let rtaDst: UInt16 = 1, rtaOif: UInt16 = 4, rtaMultipath: UInt16 = 9, rtaTable: UInt16 = 15
    static let rtnUnicast: UInt8 = 1, rtTableLocal: UInt32 = 255
    static let headerSize = 16

    /// Outcome of feeding one buffer of netlink messages.
    package enum Progress: Sendable, Hashable {
        case more
        case done
        case failed(errno: Int32)
    }

    /// Applies every message in `buffer` (one `recv` worth); says whether the dump ended.
    package mutating func apply(_ buffer: [UInt8]) -> Progress {
        var offset = 0
        while offset + Self.headerSize <= buffer.count {
            let length = Int(Self.u32(buffer, offset))
            guard length >= Self.headerSize, offset + length <= buffer.count else { return .failed(errno: 74) }  // EBADMSG
            let type = Self.u16(buffer, offset + 4)
            let body = offset + Self.headerSize
            let end = offset + length
            switch type {
            case Self.nlmsgDone:
                return .done
            case Self.nlmsgError:
                let code = end - body >= 4 ? Int32(bitPattern: Self.u32(buffer, body)) : -74
                if code != 0 { return .failed(errno: -code) }
            case Self.rtmNewLink where end - body >= 16:
                let index = Int32(bitPattern: Self.u32(buffer, body + 4))
                let flags = Self.u32(buffer, body + 8)
                var name = ""
                Self.attributes(buffer, from: body + 16, to: end) { t, s, e in
                    if t == Self.iflaIfname {
                        name = String(decoding: buffer[s..<e].prefix { $0 != 0 }, as: UTF8.self)
                    }
                }
                links[index] = Link(index: index, name: name, flags: flags)
            case Self.rtmNewAddr where end - body >= 8:
                let family = buffer[body], prefix = buffer[body + 1], scope = buffer[body + 3]
                let index = Int32(bitPattern: Self.u32(buffer, body + 4))
                guard scope == 0 else { break }  // RT_SCOPE_UNIVERSE only: no link-local, no host
                var key = "\(family)/\(prefix)"
                Self.attributes(buffer, from: body + 8, to: end) { t, s, e in
                    if t == 1 || t == 2 { key += ":" + buffer[s..<e].map { String($0) }.joined(separator: ".") }
                }
                addresses[index, default: []].insert(key)
            case Self.rtmNewRoute where end - body >= 12:
                let family = buffer[body], dstLen = buffer[body + 1], type = buffer[body + 7]
                var table = UInt32(buffer[body + 4])
                guard type == Self.rtnUnicast else { break }
                var oifs: [Int32] = []
                var dst = "default"
                Self.attributes(buffer, from: body + 12, to: end) { t, s, e in
                    switch t {
                    case Self.rtaOif where e - s >= 4: oifs.append(Int32(bitPattern: Self.u32(buffer, s)))
                    case Self.rtaTable where e - s >= 4: table = Self.u32(buffer, s)
                    case Self.rtaDst: dst = buffer[s..<e].map { String($0) }.joined(separator: ".")
                    case Self.rtaMultipath:
                        // struct rtnexthop { u16 len; u8 flags; u8 hops; s32 ifindex; } + attrs
                        var p = s
                        while p + 8 <= e {
                            let len = Int(Self.u16(buffer, p))
                            guard len >= 8 else { break }
                            oifs.append(Int32(bitPattern: Self.u32(buffer, p + 4)))
                            p += (len + 3) & ~3
                        }
                    default: break
                    }
                }
                guard table != Self.rtTableLocal else { break }
                for oif in oifs { routes[oif, default: []].insert("\(family)/\(table)/\(dst)/\(dstLen)") }
            default:
                break
            }
            offset += (length + 3) & ~3
        }
        return .more
    }

    /// Interfaces that carry a usable path, by name (see the type's rule). `interfaces`
    /// restricts the answer to those names (nil: any).
    package func usableInterfaces(among interfaces: Set<String>? = nil) -> [String] {
        links.values.filter { link in
            link.flags & Self.iffLoopback == 0
                && link.flags & Self.iffUp != 0
                && link.flags & Self.iffRunning != 0
                && (interfaces?.contains(link.name) ?? true)
                && !(addresses[link.index]?.isEmpty ?? true)
                && !(routes[link.index]?.isEmpty ?? true)
        }.map(\.name).sorted()
    }

    /// The part of the snapshot that matters to `interfaces`: a change in it is a path change.
    package func fingerprint(among interfaces: Set<String>? = nil) -> String {
        links.values.filter { interfaces?.contains($0.name) ?? true }.sorted { $0.index < $1.index }.map { l in
            let a = (addresses[l.index] ?? []).sorted().joined(separator: ",")
            let r = (routes[l.index] ?? []).sorted().joined(separator: ",")
            return "\(l.name)#\(l.index)/\(l.flags & (Self.iffUp | Self.iffRunning))[\(a)][\(r)]"
        }.joined(separator: ";")
    }

    // MARK: Decoding (netlink is host byte order)

    static func u16(_ b: [UInt8], _ i: Int) -> UInt16 {
        // Assembled as if little-endian; `init(littleEndian:)` swaps on a big-endian host.
        UInt16(littleEndian: UInt16(b[i]) | UInt16(b[i + 1]) << 8)
    }

    static func u32(_ b: [UInt8], _ i: Int) -> UInt32 {
        let v = UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
        return UInt32(littleEndian: v)
    }

    /// Calls `body(type, start, end)` for each `rtattr` in `[from, to)`.
    static func attributes(_ b: [UInt8], from: Int, to: Int, _ body: (UInt16, Int, Int) -> Void) {
        var p = from
        while p + 4 <= to {
            let len = Int(u16(b, p))
            guard len >= 4, p + len <= to else { return }
            body(u16(b, p + 2) & 0x3FFF, p + 4, p + len)  // strip NLA_F_NESTED / NLA_F_NET_BYTEORDER
            p += (len + 3) & ~3
        }
    }
}

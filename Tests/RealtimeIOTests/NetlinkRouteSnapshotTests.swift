import RealtimeIO
import Testing

/// Hand-built rtnetlink messages (little-endian host layout) fed to the snapshot.
@Suite(.timeLimit(.minutes(1))) struct NetlinkRouteSnapshotTests {
    static func message(type: UInt16, body: [UInt8], attributes: [(UInt16, [UInt8])] = []) -> [UInt8] {
        var payload = body
        for (t, data) in attributes {
            payload += le16(UInt16(4 + data.count)) + le16(t) + data
            while payload.count % 4 != 0 { payload.append(0) }
        }
        return le32(UInt32(16 + payload.count)) + le16(type) + le16(0x2) + le32(1) + le32(0) + payload
    }
    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }

    static func link(_ index: UInt32, _ name: String, flags: UInt32 = 0x1 | 0x40) -> [UInt8] {
        message(type: 16, body: [0, 0] + le16(1) + le32(index) + le32(flags) + le32(0),
                attributes: [(3, Array(name.utf8) + [0])])
    }
    static func address(_ index: UInt32, scope: UInt8 = 0) -> [UInt8] {
        message(type: 20, body: [2, 30, 0, scope] + le32(index), attributes: [(2, [10, 250, 0, 1])])
    }
    static func route(oif: UInt32, table: UInt8 = 254, type: UInt8 = 1) -> [UInt8] {
        message(type: 24, body: [2, 30, 0, 0, table, 2, 253, type] + le32(0),
                attributes: [(1, [10, 250, 0, 0]), (4, le32(oif))])
    }
    static let done = message(type: 3, body: le32(0))

    func snapshot(_ parts: [UInt8]...) -> NetlinkRouteSnapshot {
        var s = NetlinkRouteSnapshot()
        #expect(s.apply(parts.flatMap { $0 } + Self.done) == .done)
        return s
    }

    @Test func anUpInterfaceWithAnAddressAndARouteIsUsable() {
        let s = snapshot(Self.link(2, "veth0"), Self.address(2), Self.route(oif: 2))
        #expect(s.usableInterfaces() == ["veth0"])
        #expect(s.usableInterfaces(among: ["eth0"]).isEmpty)
    }

    @Test func eachMissingIngredientMakesItUnusable() {
        #expect(snapshot(Self.link(2, "v", flags: 0x1), Self.address(2), Self.route(oif: 2)).usableInterfaces().isEmpty, "no carrier")
        #expect(snapshot(Self.link(2, "v", flags: 0x40), Self.address(2), Self.route(oif: 2)).usableInterfaces().isEmpty, "admin down")
        #expect(snapshot(Self.link(1, "lo", flags: 0x1 | 0x40 | 0x8), Self.address(1), Self.route(oif: 1)).usableInterfaces().isEmpty, "loopback")
        #expect(snapshot(Self.link(2, "v"), Self.address(2, scope: 253), Self.route(oif: 2)).usableInterfaces().isEmpty, "link-local only")
        #expect(snapshot(Self.link(2, "v"), Self.address(2), Self.route(oif: 2, table: 255)).usableInterfaces().isEmpty, "local table only")
        #expect(snapshot(Self.link(2, "v"), Self.address(2), Self.route(oif: 2, type: 2)).usableInterfaces().isEmpty, "not unicast")
        #expect(snapshot(Self.link(2, "v"), Self.address(2), Self.route(oif: 3)).usableInterfaces().isEmpty, "route elsewhere")
    }

    @Test func fingerprintChangesWithTheRoutes() {
        let a = snapshot(Self.link(2, "veth0"), Self.address(2), Self.route(oif: 2))
        let b = snapshot(Self.link(2, "veth0"), Self.address(2))
        #expect(a.fingerprint() != b.fingerprint())
        #expect(a.fingerprint() == snapshot(Self.route(oif: 2), Self.address(2), Self.link(2, "veth0")).fingerprint())
    }

    @Test func errorsAndTruncationAreReported() {
        var s = NetlinkRouteSnapshot()
        #expect(s.apply(Self.message(type: 2, body: Self.le32(UInt32(bitPattern: -1)))) == .failed(errno: 1))
        var t = NetlinkRouteSnapshot()
        #expect(t.apply(Array(Self.link(2, "v").dropLast(4))) == .failed(errno: 74))
        var u = NetlinkRouteSnapshot()
        #expect(u.apply(Self.link(2, "v")) == .more, "a dump continues until NLMSG_DONE")
    }
}

#if os(Linux)
@_spi(Transport) import RealtimeIO
import Testing

/// The curl driver's socket table: a descriptor number that curl reuses after closing its
/// socket without `CURL_POLL_REMOVE` is registered again, never mistaken for the old socket.
@Suite("CurlSocketTable")
struct CurlSocketTableTests {
    typealias Table = CurlSocketTable<String>
    static let a = Table.Identity(device: 1, inode: 100)
    static let b = Table.Identity(device: 1, inode: 200)

    @Test("a new descriptor is registered; the same socket again is modified")
    func registerThenModify() {
        var t = Table()
        guard case .register = t.announce(7, identity: Self.a) else { Issue.record("expected register"); return }
        t.registered(7, "first", identity: Self.a)
        guard case .modify(let r) = t.announce(7, identity: Self.a) else { Issue.record("expected modify"); return }
        #expect(r == "first")
    }

    @Test("the same number for another open file replaces the stale registration")
    func reusedNumberIsReplaced() {
        var t = Table()
        t.registered(7, "closed-without-remove", identity: Self.a)
        guard case .replace(let stale) = t.announce(7, identity: Self.b) else { Issue.record("expected replace"); return }
        #expect(stale == "closed-without-remove")
        t.registered(7, "new", identity: Self.b)
        guard case .modify(let r) = t.announce(7, identity: Self.b) else { Issue.record("expected modify"); return }
        #expect(r == "new")
        #expect(t.count == 1)
    }

    @Test("REMOVE forgets the descriptor; an unknown identity keeps the registration")
    func removeAndUnknownIdentity() {
        var t = Table()
        t.registered(3, "x", identity: Self.a)
        guard case .modify = t.announce(3, identity: nil) else { Issue.record("expected modify"); return }
        #expect(t.remove(3) == "x")
        #expect(t.remove(3) == nil)
        guard case .register = t.announce(3, identity: Self.b) else { Issue.record("expected register"); return }
    }
}
#endif

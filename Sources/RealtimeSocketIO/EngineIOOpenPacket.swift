#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The Engine.IO `open` packet (protocol v4, "Handshake"): `0{"sid":…,"pingInterval":…}`,
/// the first packet of every connection.
struct EngineIOOpenPacket: Decodable, Sendable, Hashable {
    /// The Engine.IO session id.
    var sid: String
    /// Milliseconds between the server's pings.
    var pingInterval: Int
    /// Milliseconds the server waits for the pong; the client allows the same after a missed ping.
    var pingTimeout: Int
    /// The largest packet the server accepts, in bytes (1,000,000 when the server names none).
    var maxPayload: Int?

    /// How long the client waits for the next ping before it declares the connection dead:
    /// `pingInterval + pingTimeout` (Engine.IO protocol v4, "Heartbeat").
    var silenceLimit: Duration { .milliseconds(pingInterval) + .milliseconds(pingTimeout) }

    /// The packet in `bytes[1...]` (after the `0`), or nil when it is not a valid open packet
    /// (an interval or timeout that is not positive, or over a day, is not valid).
    static func decode(_ bytes: [UInt8]) -> EngineIOOpenPacket? {
        guard bytes.count > 1, let open = try? JSONDecoder().decode(EngineIOOpenPacket.self, from: Data(bytes[1...])) else {
            return nil
        }
        let day = 86_400_000
        guard (1...day).contains(open.pingInterval), (1...day).contains(open.pingTimeout), (open.maxPayload ?? 1) > 0 else {
            return nil
        }
        return open
    }
}

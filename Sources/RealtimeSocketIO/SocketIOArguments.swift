#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The arguments of an event or an acknowledgement: JSON text, each decoded on demand with
/// `Decodable`, and the binary attachments their placeholders point to.
public struct SocketIOArguments: Sendable, Hashable {
    /// The arguments as one JSON array text, as the server sent them (placeholders included).
    public let json: String
    /// The binary attachments, in order (`num` 0, 1, …).
    public let attachments: [[UInt8]]
    private let bytes: [UInt8]
    private let ranges: [Range<Int>]

    /// `payload` is a JSON array already checked by the packet decoder; `dropFirst` leaves the
    /// event name out.
    init(payload: [UInt8], dropFirst: Bool, attachments: [[UInt8]]) {
        let all = (try? SocketIOJSONScanner.arrayElements(payload)) ?? []
        let kept = dropFirst ? Array(all.dropFirst()) : all
        bytes = payload
        ranges = kept
        self.attachments = attachments
        json = "[" + kept.map { String(decoding: payload[$0], as: UTF8.self) }.joined(separator: ",") + "]"
    }

    /// How many arguments there are.
    public var count: Int { ranges.count }

    /// The JSON text of argument `index`, or nil past the end.
    public func json(at index: Int) -> String? {
        ranges.indices.contains(index) ? String(decoding: bytes[ranges[index]], as: UTF8.self) : nil
    }

    /// Argument `index` decoded as `type` with `JSONDecoder`.
    ///
    /// - Throws: ``SocketIOError`` `decoding_failed` when there is no such argument or it is
    ///   not a `type`.
    public func decode<T: Decodable>(_ type: T.Type, at index: Int = 0) throws -> T {
        guard ranges.indices.contains(index) else {
            throw SocketIOError(.decoding, detail: "no argument \(index) (of \(ranges.count))")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes[ranges[index]]))
        } catch {
            throw SocketIOError(.decoding, detail: "argument \(index) is not a \(T.self)")
        }
    }

    /// The attachment argument `index` stands for (a `{"_placeholder":true,"num":N}`), or nil
    /// when it is not a placeholder or names no attachment.
    public func binary(at index: Int) -> [UInt8]? {
        struct Placeholder: Decodable {
            var _placeholder: Bool
            var num: Int
        }
        guard let p = try? decode(Placeholder.self, at: index), p._placeholder, attachments.indices.contains(p.num) else {
            return nil
        }
        return attachments[p.num]
    }

    /// The last argument when it is a string: the offset a server with connection state
    /// recovery appends to what it broadcasts.
    var trailingString: String? {
        guard let last = ranges.last, bytes[last.lowerBound] == UInt8(ascii: "\"") else { return nil }
        return try? JSONDecoder().decode(String.self, from: Data(bytes[last]))
    }
}

import Realtime

/// One Socket.IO packet (protocol v5), the payload of an Engine.IO `message` packet:
/// `<type>[<attachments>-][<namespace>,][<ack id>][<JSON payload>]`.
///
/// The payload stays JSON text: checked for shape on decode (an object for CONNECT, an array
/// whose first element is a string for EVENT, an array for ACK), never turned into a value.
struct SocketIOPacket: Sendable, Hashable {
    /// The packet types of the Socket.IO protocol v5, by their digit.
    enum Kind: UInt8, Sendable, Hashable {
        case connect = 0, disconnect, event, ack, connectError, binaryEvent, binaryAck

        var isBinary: Bool { self == .binaryEvent || self == .binaryAck }
    }

    var kind: Kind
    /// `/` unless the packet names another.
    var namespace: String = "/"
    var ackID: Int?
    /// The number of binary messages that follow (BINARY_EVENT, BINARY_ACK).
    var attachments = 0
    /// Raw JSON text; empty when the packet has none.
    var payload: [UInt8] = []

    /// The longest ack id accepted, in digits (ids are counters; 15 digits stay exact in a
    /// JavaScript number).
    static let maxAckDigits = 15

    /// The wire text, without the Engine.IO `4` in front.
    var encoded: String {
        var s = String(kind.rawValue)
        if kind.isBinary { s += "\(attachments)-" }
        if namespace != "/" { s += namespace + "," }
        if let ackID { s += String(ackID) }
        s += String(decoding: payload, as: UTF8.self)
        return s
    }

    /// The packet in `bytes[start...]`.
    ///
    /// - Throws: ``RealtimeError`` `protocolViolation` for a malformed packet (unknown type, a
    ///   bad attachment count or ack id, a payload of the wrong shape) and `messageTooLarge`
    ///   (class limit) for more attachments than `maxAttachments`. The detail names the rule,
    ///   never the payload.
    static func decode(_ bytes: [UInt8], from start: Int = 0, maxAttachments: Int) throws(RealtimeError) -> SocketIOPacket {
        var i = start
        guard i < bytes.count, bytes[i].isDigit, let kind = Kind(rawValue: bytes[i] - UInt8(ascii: "0")) else {
            throw .protocolViolation("Socket.IO packet of unknown type")
        }
        i += 1
        var packet = SocketIOPacket(kind: kind)
        if kind.isBinary {
            packet.attachments = try attachmentCount(bytes, &i, maxAttachments: maxAttachments)
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "/") {
            guard let comma = bytes[i...].firstIndex(of: UInt8(ascii: ",")) else {
                throw .protocolViolation("Socket.IO namespace without its comma")
            }
            packet.namespace = String(decoding: bytes[i..<comma], as: UTF8.self)
            i = comma + 1
        }
        let digits = bytes[i...].prefix(while: \.isDigit).count
        if digits > 0 {
            guard digits <= maxAckDigits else { throw .protocolViolation("Socket.IO ack id too long") }
            packet.ackID = Int(String(decoding: bytes[i..<i + digits], as: UTF8.self))
            i += digits
        }
        packet.payload = Array(bytes[i...])
        try packet.checkShape()
        return packet
    }

    private static func attachmentCount(_ bytes: [UInt8], _ i: inout Int, maxAttachments: Int) throws(RealtimeError) -> Int {
        let digits = bytes[i...].prefix(while: \.isDigit).count
        guard digits > 0, digits <= 9, i + digits < bytes.count, bytes[i + digits] == UInt8(ascii: "-"),
            let count = Int(String(decoding: bytes[i..<i + digits], as: UTF8.self))
        else {
            throw .protocolViolation("Socket.IO binary packet without a valid attachment count")
        }
        guard count <= maxAttachments else {
            throw RealtimeError(
                .messageTooLarge, detail: "Socket.IO packet announces \(count) attachments, more than \(maxAttachments)", closeCode: 1009)
        }
        i += digits + 1
        return count
    }

    /// The payload's shape for the packet's type (Socket.IO protocol v5, "Packet types").
    private func checkShape() throws(RealtimeError) {
        let first: UInt8?
        do {
            first = try SocketIOJSONScanner.validate(payload)
        } catch {
            throw .protocolViolation(error == .tooDeep ? "Socket.IO payload nested too deep" : "Socket.IO payload is not JSON")
        }
        switch kind {
        case .connect:
            guard first == nil || first == UInt8(ascii: "{") else { throw .protocolViolation("Socket.IO CONNECT payload is not an object") }
        case .disconnect:
            break
        case .connectError:
            guard first == UInt8(ascii: "{") || first == UInt8(ascii: "\"") else {
                throw .protocolViolation("Socket.IO CONNECT_ERROR payload is not an object")
            }
        case .event, .binaryEvent:
            guard first == UInt8(ascii: "["),
                let name = try? SocketIOJSONScanner.arrayElements(payload).first, payload[name.lowerBound] == UInt8(ascii: "\"")
            else { throw .protocolViolation("Socket.IO EVENT payload is not an array starting with the event name") }
        case .ack, .binaryAck:
            guard first == UInt8(ascii: "["), ackID != nil else {
                throw .protocolViolation("Socket.IO ACK without an id or an array payload")
            }
        }
    }
}

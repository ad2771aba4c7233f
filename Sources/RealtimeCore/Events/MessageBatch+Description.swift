// Short, readable and secret-free descriptions for `print`, logs and debuggers (see
// ClientEvent+Description.swift): a batch is summarised, its payloads are not printed.

extension MessageBatch: CustomStringConvertible {
    /// `3 messages, 384 bytes, ids 1…3` (the ids of the first and last messages, when set).
    public var description: String {
        var s = "\(count) message\(count == 1 ? "" : "s"), \(payloadByteCount) bytes"
        if let first = first?.id, let last = last?.id, !first.isEmpty || !last.isEmpty {
            s += first == last ? ", id \(last)" : ", ids \(first)…\(last)"
        }
        return s
    }
}

extension BatchedMessage: CustomStringConvertible {
    /// As ``Message/description``.
    public var description: String { message.description }
}

extension ClientBatchEvent: CustomStringConvertible {
    /// `open: …`, `messages: …`, `error: …` or `closed: …` with the payload's description.
    public var description: String {
        switch self {
        case .open(let info): return "open: \(info)"
        case .messages(let batch): return "messages: \(batch)"
        case .error(let error): return "error: \(error)"
        case .closed(let close): return "closed: \(close)"
        }
    }
}

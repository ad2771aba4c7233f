/// A string as a JSON string literal (RFC 8259 §7): quotes, backslashes and control
/// characters escaped, everything else as is. Shared by the code that writes JSON by hand.
package enum JSONString {
    /// `text` in quotes, escaped.
    package static func quoted(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 2)
        append(text, to: &out)
        return out
    }

    /// Appends `text` in quotes, escaped, to `out`.
    package static func append(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

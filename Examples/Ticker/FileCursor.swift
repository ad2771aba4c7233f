import Foundation
import Realtime

/// A ``CursorStore`` in a file: the cursor is the file's text (none while the file does not
/// exist), replaced atomically (written to a temporary file, then renamed), so a crash leaves
/// the old cursor or the new one, never half of one.
enum FileCursor {
    static func store(at path: String) -> CursorStore {
        CursorStore(
            load: { try? String(contentsOfFile: path, encoding: .utf8) },
            save: { cursor in
                do {
                    try Data(cursor.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
                } catch {
                    Output.error("cannot save the cursor to \(path): \(error)")
                }
            })
    }
}

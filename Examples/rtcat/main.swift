import Foundation

FileHandle.standardError.write("usage: rtcat parse-sse [--chunk N] [--quiet]\n".data(using: .utf8)!)
exit(2)

#if os(Linux)
import Foundation

extension ProcessResources {
    /// The peak resident set size in bytes since the process started or since the last
    /// ``resetPeakResidentBytes()`` (`VmHWM` in /proc/self/status); −1 if unreadable. Exact,
    /// unlike sampling ``residentBytes``: a spike between two samples still counts.
    public static var peakResidentBytes: Int {
        guard let text = procText("/proc/self/status"),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kibibytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return -1 }
        return kibibytes * 1024
    }

    /// Sets the peak to the current resident set size (writes 5 to /proc/self/clear_refs,
    /// Linux 4.0+). Returns false when the kernel refused.
    @discardableResult
    public static func resetPeakResidentBytes() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }
}
#endif

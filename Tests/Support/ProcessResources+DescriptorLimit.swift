#if os(Linux)
import Glibc

extension ProcessResources {
    /// Raises the soft descriptor limit to `needed` when the hard limit allows; prints
    /// `SKIPPED (<label>): …` and returns false (the test skips visibly) when it does not.
    public static func ensureDescriptorLimit(_ needed: Int, label: String) -> Bool {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return false }
        if limit.rlim_cur >= rlim_t(needed) { return true }
        if limit.rlim_max >= rlim_t(needed) {
            limit.rlim_cur = rlim_t(needed)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { return true }
        }
        print("SKIPPED (\(label)): needs \(needed) open files, the limit is \(limit.rlim_cur) (hard \(limit.rlim_max)); raise `ulimit -n`")
        return false
    }
}
#endif

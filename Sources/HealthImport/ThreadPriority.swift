#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Lowers the scheduling priority of the calling thread, for an import's background readers, and reads its CPU time.
///
/// An import runs three busy threads on what is often a two-core machine: the XML parser, the attachment reader
/// (GPX routes, electrocardiograms) and the saver. With equal priorities the scheduler gives each two thirds of a
/// core, and the saver — the longest chain of work, which everything else waits for at the end — runs a third
/// slower than it could. The attachment reader has slack (its routes are only needed by the end of the import), so
/// it yields: the saver and the parser keep a core each and the reader takes what they leave.
///
/// On Linux a nice value set with `setpriority(PRIO_PROCESS, 0, …)` applies to the calling thread only; elsewhere
/// this does nothing. Raising a nice value needs no privilege; failure is ignored (the import is only slower).
///
/// ```swift
/// let reader = Thread { ThreadPriority.yieldToOtherThreads(by: 10); … }
/// ```
enum ThreadPriority {
    static func yieldToOtherThreads(by niceness: Int32) {
        #if os(Linux)
        errno = 0
        let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        guard errno == 0 else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, min(19, current + niceness))
        #endif
    }

    /// The CPU time the calling thread has used, in seconds (`CLOCK_THREAD_CPUTIME_ID`; 0 where unavailable).
    static func threadCPUSeconds() -> Double {
        var spec = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec) == 0 else { return 0 }
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }
}

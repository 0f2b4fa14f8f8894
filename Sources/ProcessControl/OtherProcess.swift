import Glibc

/// Another process, known by its id.
public enum OtherProcess {
    /// True when no process has the id `pid` any more (`kill(pid, 0)` answers ESRCH); false for
    /// a live one, even one this process may not signal.
    public static func hasExited(_ pid: Int32) -> Bool {
        kill(pid, 0) != 0 && errno == ESRCH
    }
}

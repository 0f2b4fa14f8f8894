import CMalloc

/// Settings of this process's C runtime.
public enum MallocArenas {
    /// glibc gives each thread that allocates an arena of its own, up to 8 per core, and what a
    /// thread frees stays in its arena: with the server's blocking threads, that was most of the
    /// growth of its peak RSS under posting. Call it before any thread starts.
    public static func limit(_ count: Int32) {
        _ = mallopt(M_ARENA_MAX, count)
    }
}

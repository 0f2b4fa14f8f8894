import CMicroHTTPD

extension HTTPServer {
    /// glibc gives each thread that allocates an arena of its own, up to 8 per core, and what a
    /// thread frees stays in its arena: with the blocking threads, that was most of the growth
    /// of the server's peak RSS under posting. Call it before any thread starts.
    public static func limitMallocArenas(_ count: Int32) {
        _ = mallopt(M_ARENA_MAX, count)
    }
}

import DiaryStore

/// Readiness and metrics on PostgreSQL.
extension PostgresDiaryStore: OperatedStore {
    /// A primary that answers and takes writes: a standby (`pg_is_in_recovery()`) or a database
    /// whose transactions are read-only by default cannot take one. An unreachable or silent
    /// server throws within the pool's `timeout` (`--database-timeout`), which bounds this
    /// check rather than `bound`: a connection's login and each statement already wait that long.
    public func checkWritable(within bound: Duration) throws(StoreError) {
        let subject = StoreError.Subject.operation("database")
        let state = try statement(subject) { session in
            try session.one((Bool, String).self, "SELECT pg_is_in_recovery(), current_setting('transaction_read_only')")
        }
        guard let (inRecovery, readOnly) = state else {
            throw StoreError(.unavailable, subject, detail: "the server did not say whether it can be written")
        }
        if inRecovery {
            throw StoreError(.unavailable, subject, detail: "the server is a standby in recovery: it takes no writes")
        }
        if readOnly == "on" {
            throw StoreError(.unavailable, subject, detail: "the server's transactions are read-only")
        }
    }

    public func statistics() throws(StoreError) -> StoreStatistics {
        let counts = try read(.operation("statistics")) { session in
            try session.one((Int64, Int64).self, "SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM entries)")
        }
        var statistics = StoreStatistics(users: Int(counts?.0 ?? 0), entries: Int(counts?.1 ?? 0))
        let usage = pool.usage
        statistics.connectionsInUse = usage.inUse
        statistics.connectionsOpen = usage.open
        statistics.connectionWaits = usage.waits
        return statistics
    }
}

#ifndef DIARY_SQLITE_CONFIG_H
#define DIARY_SQLITE_CONFIG_H

/// What GRDB does not offer of SQLite's C API: sqlite3_db_config(), which Swift cannot call
/// (it is variadic), and the WAL index. `connection` is an `sqlite3 *` (GRDB's
/// `Database.sqliteConnection`).

/// SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE on `connection`: when it closes as the file's last
/// connection, it leaves the WAL as it is instead of checkpointing it (two fsyncs) and deleting
/// it. Returns SQLite's result code.
int diary_sqlite_keep_wal_on_close(void *connection);

/// The start of the WAL index (the `-shm` file) of `connection`'s main database, mapped
/// through the connection's own VFS (`xShmMap`, region 0), so no other descriptor of the file is
/// opened (closing one would drop SQLite's POSIX locks on it). Its first 48 bytes are the
/// WAL-index header that every commit to the file rewrites, from any process
/// (https://sqlite.org/walformat.html). Valid while `connection` stays open; NULL when the VFS
/// has no shared memory or cannot map it. Call it after `connection` has read the file in WAL
/// mode, so that the region returned is the one SQLite itself mapped for it.
const volatile void *diary_sqlite_wal_index(void *connection);

#endif

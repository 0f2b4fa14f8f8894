#ifndef DIARY_SQLITE_CONFIG_H
#define DIARY_SQLITE_CONFIG_H

/// sqlite3_db_config() for Swift, which cannot call a variadic C function.
/// `connection` is an `sqlite3 *` (GRDB's `Database.sqliteConnection`).

/// SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE on `connection`: when it closes as the file's last
/// connection, it leaves the WAL as it is instead of checkpointing it (two fsyncs) and deleting
/// it. Returns SQLite's result code.
int diary_sqlite_keep_wal_on_close(void *connection);

#endif

#include <sqlite3.h>
#include "sqlite_config.h"

int diary_sqlite_keep_wal_on_close(void *connection) {
    return sqlite3_db_config((sqlite3 *)connection, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

const volatile void *diary_sqlite_wal_index(void *connection) {
    sqlite3_file *file = 0;
    if (sqlite3_file_control((sqlite3 *)connection, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK) return 0;
    if (file == 0 || file->pMethods == 0 || file->pMethods->iVersion < 2 || file->pMethods->xShmMap == 0) return 0;
    volatile void *region = 0;
    // 32768: SQLite's own region size (WALINDEX_PGSZ); bExtend 0 maps only what exists.
    if (file->pMethods->xShmMap(file, 0, 32768, 0, &region) != SQLITE_OK) return 0;
    return region;
}

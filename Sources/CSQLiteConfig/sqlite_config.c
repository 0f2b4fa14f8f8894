#include <sqlite3.h>
#include "sqlite_config.h"

int diary_sqlite_keep_wal_on_close(void *connection) {
    return sqlite3_db_config((sqlite3 *)connection, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

#ifndef HEALTHPORT_CSQLITE_SHIM_H
#define HEALTHPORT_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer: Swift cannot use it.
// Binds text that SQLite copies before returning, so the caller's buffer may go away.
static inline int cx_sqlite_bind_text_transient(sqlite3_stmt *statement, int index, const char *text, int count) {
  return sqlite3_bind_text(statement, index, text, count, SQLITE_TRANSIENT);
}

// Binds text that SQLite reads in place until the statement is reset or rebound
// (SQLITE_STATIC): the caller keeps the bytes alive and unchanged until then.
static inline int cx_sqlite_bind_text_static(sqlite3_stmt *statement, int index, const char *text, int count) {
  return sqlite3_bind_text(statement, index, text, count, SQLITE_STATIC);
}

static inline int cx_sqlite_bind_blob_transient(sqlite3_stmt *statement, int index, const void *bytes, int count) {
  return sqlite3_bind_blob(statement, index, bytes, count, SQLITE_TRANSIENT);
}

// sqlite3_config is variadic. Turning the memory statistics off saves a global mutex per
// allocation; it must run before the library is initialized (later it returns SQLITE_MISUSE).
static inline int cx_sqlite_disable_memstatus(void) {
  return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif

#ifndef HEALTHPORT_CLIBPQ_SHIM_H
#define HEALTHPORT_CLIBPQ_SHIM_H

// libpq is opened with dlopen on a PostgreSQL load's first connection, not linked: linked, it and
// the libraries it needs (libssl, libcrypto, Kerberos, LDAP, GnuTLS, p11-kit, …) are mapped and
// initialised by every run of the tool, about 5 MB of every command's peak memory.
// __typeof__ names a function's type without referring to its symbol, so nothing here links libpq.

#include <dlfcn.h>
#include <stddef.h>
#include <postgresql/libpq-fe.h>

#define HP_LIBPQ_FUNCTIONS(X) \
  X(PQclear) X(PQconnectdb) X(PQdb) X(PQerrorMessage) X(PQexec) X(PQexecParams) X(PQfinish) \
  X(PQfreemem) X(PQgetCopyData) X(PQgetResult) X(PQgetisnull) X(PQgetvalue) X(PQhost) \
  X(PQnfields) X(PQntuples) X(PQport) X(PQputCopyData) X(PQputCopyEnd) X(PQresultErrorField) \
  X(PQresultStatus) X(PQsetClientEncoding) X(PQsetNoticeProcessor) X(PQstatus)

/// The libpq functions the PostgreSQL client calls, found in the opened library.
typedef struct {
#define HP_LIBPQ_FIELD(name) __typeof__(&name) _Nonnull name;
  HP_LIBPQ_FUNCTIONS(HP_LIBPQ_FIELD)
#undef HP_LIBPQ_FIELD
} HPLibPQ;

/// Opens libpq and fills `table`; returns NULL, or the loader's message when the library or one
/// of its functions is missing (`table` is then unusable).
static inline const char *_Nullable hp_libpq_open(HPLibPQ *_Nonnull table) {
  void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    const char *message = dlerror();
    return message != NULL ? message : "libpq.so.5 could not be opened";
  }
#define HP_LIBPQ_SYMBOL(name) \
  if ((*(void **)&table->name = dlsym(library, #name)) == NULL) return "libpq.so.5 lacks " #name;
  HP_LIBPQ_FUNCTIONS(HP_LIBPQ_SYMBOL)
#undef HP_LIBPQ_SYMBOL
  return NULL;
}

#endif

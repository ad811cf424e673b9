// SQLite's C API (Debian's libsqlite3-dev), the engine under PQL's store.
#include <sqlite3.h>

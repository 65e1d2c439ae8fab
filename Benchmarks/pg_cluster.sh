#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for `make bench`'s load-postgres row, as the tests start one:
# initdb into FOLDER/pg (as nobody when run as root: the server refuses root), default settings
# (fsync on), listening only on a Unix socket in that folder, database `health`.
#   pg_cluster.sh start FOLDER   prints the URI to load into
#   pg_cluster.sh reset FOLDER   drops schema healthport (before each run)
#   pg_cluster.sh stop FOLDER    stops the server and removes FOLDER/pg
set -euo pipefail
action=$1
folder=$(cd "$2" && pwd)/pg
bin=${HEALTHPORT_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
[[ -x "$bin/initdb" ]] || { echo "pg_cluster: no PostgreSQL server binaries (scripts/install-deps.sh)" >&2; exit 2; }
as_server() { if [[ $(id -u) -eq 0 ]]; then runuser -u nobody -- "$@"; else "$@"; fi; }
psql_() { PGOPTIONS="-c client_min_messages=warning" "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$folder" -U postgres "$@"; }
case $action in
  start)
    rm -rf "$folder"
    mkdir -p "$folder"
    [[ $(id -u) -eq 0 ]] && chown nobody:nogroup "$folder"
    as_server "$bin/initdb" -D "$folder/data" -U postgres --auth-local=trust -E UTF8 --locale=C.UTF-8 > /dev/null
    as_server "$bin/pg_ctl" -D "$folder/data" -l "$folder/log" -w -o "-c listen_addresses='' -k $folder" start \
      > /dev/null
    psql_ -d postgres -c "CREATE DATABASE health"
    echo "postgresql://postgres@/health?host=$folder"
    ;;
  reset) psql_ -d health -c "DROP SCHEMA IF EXISTS healthport CASCADE" ;;
  stop)
    as_server "$bin/pg_ctl" -D "$folder/data" -m fast -w stop > /dev/null 2>&1 || true
    rm -rf "$folder"
    ;;
  *) echo "usage: pg_cluster.sh start|reset|stop FOLDER" >&2; exit 2 ;;
esac

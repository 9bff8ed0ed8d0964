# A throwaway PostgreSQL server on loopback, in a temporary folder: what CI runs the suite
# against, and what `make bench` measures (bench/README.md). Source this file, then:
#
#   start_postgres    initialise and start a server; exports DATABASE_URL (database "catalog",
#                     user "catalog", trusted on loopback only)
#   stop_postgres     stop it and remove its folder
#
# Needs Debian's postgresql package (.ci/run installs it where missing). PG_FSYNC=on keeps
# fsync on, as a deployment would; off (the default) suits a server thrown away after a run.
#
# PG_AUTOVACUUM: the server's autovacuum settings. By default it looks at every database each
# second, at full speed, which the benchmark's bulk loads want. The suite (.ci/run) turns it
# off: it vacuums between tests itself (tests/conftest.py says why), and a vacuum while a test
# holds the tables leaves the planner counting their rows at zero.
PG_AUTOVACUUM="${PG_AUTOVACUUM:--c autovacuum_naptime=1 -c autovacuum_vacuum_cost_delay=0}"

as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

start_postgres() {
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  pgdir=$(mktemp -d)
  chmod 755 "$pgdir"
  if [ "$(id -u)" = 0 ]; then chown postgres: "$pgdir"; fi
  pgport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  as_postgres "$pgbin/initdb" -D "$pgdir/data" -U catalog --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  as_postgres "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w \
    -o "-h 127.0.0.1 -p $pgport -k $pgdir -c fsync=${PG_FSYNC:-off} $PG_AUTOVACUUM" start >/dev/null
  as_postgres "$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U catalog catalog
  export DATABASE_URL="postgres://catalog@127.0.0.1:$pgport/catalog"
}

stop_postgres() {
  as_postgres "$pgbin/pg_ctl" -D "$pgdir/data" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$pgdir"
}

#!/bin/sh
# As the official image's entry point does: a first start makes the cluster with the
# POSTGRES_* environment's user, password and database; then PostgreSQL runs as postgres,
# listening on every address with password (SCRAM) authentication.
set -eu
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"; }
install -d -o postgres -g postgres -m 0700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  password_file=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$password_file"
  chown postgres "$password_file"
  as_postgres initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$password_file" \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm "$password_file"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ "${POSTGRES_DB:-$POSTGRES_USER}" != postgres ]; then
    as_postgres postgres --single -D "$PGDATA" postgres >/dev/null <<SQL
CREATE DATABASE "${POSTGRES_DB:-$POSTGRES_USER}" OWNER "$POSTGRES_USER";
SQL
  fi
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups -- \
  postgres -D "$PGDATA" -c listen_addresses='*'

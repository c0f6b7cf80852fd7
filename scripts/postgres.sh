#!/usr/bin/env bash
# Starts Debian's PostgreSQL cluster on loopback without systemd, makes the role the tests
# use (IAP_TEST_DATABASE_URL, default below) and installs pg_stat_statements for `iap-lab bench`.
# Safe to run again.
set -euo pipefail
sudo=""
as_postgres=(runuser -u postgres --)
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
  as_postgres=(sudo -u postgres)
fi

version=$(ls /etc/postgresql 2>/dev/null | sort -n | tail -1)
[ -n "$version" ] || { echo "postgres: no cluster in /etc/postgresql (is postgresql installed?)" >&2; exit 1; }
# The store tests run in parallel, each on a database of its own with a few connections:
# Debian's default of 100 connections is too few. `iap-lab bench` counts statements with
# pg_stat_statements, which must be preloaded; track_utility counts BEGIN and COMMIT too.
# Both are read at start only (a drop-in): the server restarts when the file changes.
conf="/etc/postgresql/$version/main/conf.d/iap-tests.conf"
wanted="max_connections = 400
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track_utility = on
pg_stat_statements.max = 10000"
if [ "$(cat "$conf" 2>/dev/null)" != "$wanted" ]; then
  echo "$wanted" | $sudo tee "$conf" >/dev/null
  if pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" && $4 == "online"' | grep -q .; then
    echo "setup: restarting PostgreSQL $version for $conf"
    $sudo pg_ctlcluster "$version" main restart
  fi
fi
started=""
if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" && $4 == "online"' | grep -q .; then
  echo "setup: starting PostgreSQL $version"
  # A server that was killed replays its WAL and syncs its data directory first, which on a
  # busy disk takes longer than pg_ctl's default minute: wait up to ten.
  $sudo pg_ctlcluster "$version" main start -- -t 600
  started=1
fi
for _ in $(seq 1 1200); do
  pg_isready -q -h 127.0.0.1 -p 5432 && break
  sleep 0.5
done
pg_isready -q -h 127.0.0.1 -p 5432 || { echo "postgres: not ready; see /var/log/postgresql/" >&2; exit 1; }

# A role that may create the databases each test makes for itself.
"${as_postgres[@]}" psql -q -v ON_ERROR_STOP=1 <<'SQL' >/dev/null
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'iap_test') THEN
    CREATE ROLE iap_test LOGIN CREATEDB PASSWORD 'iap-test-only';
  END IF;
END
$$;
SET client_min_messages = warning;
-- The view counts every database's statements; it lives here. The role may read all of
-- them and reset them (the bench resets its own database's only).
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
GRANT pg_read_all_stats TO iap_test;
GRANT EXECUTE ON FUNCTION pg_stat_statements_reset(oid, oid, bigint) TO iap_test;
SQL
# Each test drops its database; one whose process was killed leaves it behind, and a killed
# server's restart syncs every file of every database. Just started, no test can be using
# one: drop them.
if [ -n "$started" ]; then
  for name in $("${as_postgres[@]}" psql -Atc "SELECT datname FROM pg_database WHERE datname LIKE 'iap\_test\_%'"); do
    "${as_postgres[@]}" psql -q -c "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" >/dev/null
  done
fi
echo "setup: PostgreSQL $version is ready (postgres://iap_test@127.0.0.1:5432)"

#!/usr/bin/env bash
# Starts Debian's PostgreSQL cluster on loopback without systemd and makes the role the
# tests use (IAP_TEST_DATABASE_URL, default below). Safe to run again.
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
# Debian's default of 100 connections is too few (a drop-in, read at start).
conf="/etc/postgresql/$version/main/conf.d/iap-tests.conf"
if [ ! -f "$conf" ]; then
  echo "max_connections = 400" | $sudo tee "$conf" >/dev/null
  if pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" && $4 == "online"' | grep -q .; then
    $sudo pg_ctlcluster "$version" main restart
  fi
fi
if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" && $4 == "online"' | grep -q .; then
  echo "setup: starting PostgreSQL $version"
  $sudo pg_ctlcluster "$version" main start
fi
for _ in $(seq 1 60); do
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
SQL
echo "setup: PostgreSQL $version is ready (postgres://iap_test@127.0.0.1:5432)"

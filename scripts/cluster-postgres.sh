#!/usr/bin/env bash
# A PostgreSQL 15 primary and a synchronous streaming standby on this machine, each in a
# network namespace of its own (scripts/netns.sh), for the failover tests (issue 26).
#
#   scripts/cluster-postgres.sh up               # pg1 primary at 10.77.0.21, pg2 its synchronous standby at 10.77.0.22
#   scripts/cluster-postgres.sh kill NAME        # stop NAME hard (pg_ctl stop -m immediate): no checkpoint, no goodbye
#   scripts/cluster-postgres.sh promote NAME     # promote the standby NAME; it runs alone until the other rejoins
#   scripts/cluster-postgres.sh rejoin NAME      # NAME (stopped) becomes the standby of the other (pg_rewind, else a fresh copy)
#   scripts/cluster-postgres.sh cut NAME         # NAME's network down (the server keeps running)
#   scripts/cluster-postgres.sh heal NAME        # and up again
#   scripts/cluster-postgres.sh status           # each server: running, primary or standby
#   scripts/cluster-postgres.sh url              # IAP_DATABASE_URL naming both servers
#   scripts/cluster-postgres.sh down             # everything gone: servers, data, namespaces (safe to repeat)
#
# The servers listen on their namespace's address, port 5432 (and on a socket in their own
# directory, never the machine's /var/run/postgresql), and trust nobody without a password:
# the app role iap_test (password iap-test-only, database iap) and the replication role
# replicator from 10.77.0.0/24; the host reaches them through the bridge. Both servers carry
# synchronous_standby_names = 'FIRST 1 (pg1, pg2)' (each standby's application_name is its
# name), so whichever is primary acknowledges a commit only once the other has it on disk.
# IAP_PG_CLUSTER_DIR (default /tmp/iap-pg-cluster) holds the data. Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
# The servers started here would inherit every descriptor the caller left open, and keep it
# for their lifetime: Foundation's Process learns that a child ended when its end of a socket
# closes, so a test running this script would wait for the servers to stop. Only 0-2 stay
# (and 255, bash's own copy of this script).
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  case $fd in 0 | 1 | 2 | 255) ;; *) eval "exec $fd>&-" 2>/dev/null || true ;; esac
done

bin=/usr/lib/postgresql/15/bin
root=${IAP_PG_CLUSTER_DIR:-/tmp/iap-pg-cluster}
names=(pg1 pg2)
app_password=iap-test-only
replication_password=iap-replication-only

address() { case $1 in pg1) echo 10.77.0.21 ;; pg2) echo 10.77.0.22 ;; *) echo "cluster: no server $1" >&2; exit 64 ;; esac; }
other() { case $1 in pg1) echo pg2 ;; pg2) echo pg1 ;; esac; }
data() { echo "$root/$1/data"; }
sockets() { echo "$root/$1/socket"; }
as_postgres() { runuser -u postgres -- "$@"; }
# Administration commits locally: before the standby exists, a synchronous commit would wait for it.
sql() { as_postgres env PGOPTIONS='-c synchronous_commit=local' "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$(sockets "$1")" -p 5432 -U postgres -d postgres -Atc "$2"; }
running() { [ -f "$(data "$1")/postmaster.pid" ] && as_postgres "$bin/pg_ctl" -D "$(data "$1")" status >/dev/null 2>&1; }

# Starts NAME inside its namespace; the server's own log is beside its data.
start() {
  ip netns exec "iap-$1" runuser -u postgres -- "$bin/pg_ctl" -D "$(data "$1")" -l "$root/$1/server.log" \
    -w -t 60 start >/dev/null || { tail -20 "$root/$1/server.log" >&2; exit 1; }
}

# Settings both servers share, whichever is primary (postgresql.auto.conf is per server).
configure() {
  cat >>"$(data "$1")/postgresql.conf" <<EOF
listen_addresses = '$(address "$1")'
port = 5432
unix_socket_directories = '$(sockets "$1")'
cluster_name = '$1'
max_connections = 200
wal_level = replica
wal_log_hints = on
max_wal_senders = 10
wal_keep_size = '256MB'
hot_standby = on
synchronous_commit = on
synchronous_standby_names = 'FIRST 1 (pg1, pg2)'
fsync = on
EOF
  cat >>"$(data "$1")/pg_hba.conf" <<EOF
host replication replicator 10.77.0.0/24 scram-sha-256
host all all 10.77.0.0/24 scram-sha-256
EOF
}

# Makes NAME a standby of the other server: stream from it, under NAME's application_name.
follow() {
  local primary
  primary=$(other "$1")
  touch "$(data "$1")/standby.signal"
  sed -i '/^primary_conninfo/d' "$(data "$1")/postgresql.auto.conf"
  echo "primary_conninfo = 'host=$(address "$primary") port=5432 user=replicator password=$replication_password application_name=$1'" \
    >>"$(data "$1")/postgresql.auto.conf"
  chown postgres:postgres "$(data "$1")/standby.signal" "$(data "$1")/postgresql.auto.conf"
}

# A fresh copy of the other server's data, as its standby.
copy_from_other() {
  local primary
  primary=$(other "$1")
  rm -rf "$(data "$1")"
  install -d -o postgres -g postgres -m 0700 "$(data "$1")"
  ip netns exec "iap-$1" runuser -u postgres -- env PGPASSWORD=$replication_password "$bin/pg_basebackup" \
    -h "$(address "$primary")" -p 5432 -U replicator -D "$(data "$1")" -X stream -c fast -R
  # The copy carries the other's listen address and name: make them NAME's again.
  configure_copy "$1"
  follow "$1"
}

# postgresql.conf came from the other server: the last setting wins, so NAME's are appended.
configure_copy() {
  cat >>"$(data "$1")/postgresql.conf" <<EOF
listen_addresses = '$(address "$1")'
unix_socket_directories = '$(sockets "$1")'
cluster_name = '$1'
EOF
}

wait_until() {
  local what=$1
  shift
  for _ in $(seq 1 120); do "$@" && return 0; sleep 0.5; done
  echo "cluster: timed out waiting for $what" >&2
  exit 1
}

answers() {
  PGPASSWORD=$app_password PGCONNECT_TIMEOUT=2 "$bin/psql" -X -q -h "$(address "$1")" -p 5432 -U iap_test -d iap \
    -Atc 'SELECT 1' >/dev/null 2>&1
}
is_primary() { [ "$(sql "$1" 'SELECT pg_is_in_recovery()' 2>/dev/null)" = f ]; }
streams_synchronously() { [ "$(sql "$1" "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'" 2>/dev/null)" = 1 ]; }

up() {
  down >/dev/null 2>&1 || true
  scripts/netns.sh up pg1 "$(address pg1)"
  scripts/netns.sh up pg2 "$(address pg2)"
  for name in "${names[@]}"; do install -d -o postgres -g postgres -m 0700 "$root/$name" "$(sockets "$name")"; done
  chmod 0711 "$root"
  as_postgres "$bin/initdb" -D "$(data pg1)" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    -E UTF8 --locale=C.UTF-8 >/dev/null
  configure pg1
  start pg1
  sql pg1 "CREATE ROLE replicator REPLICATION LOGIN PASSWORD '$replication_password'"
  sql pg1 "CREATE ROLE iap_test LOGIN CREATEDB PASSWORD '$app_password'"
  sql pg1 "CREATE DATABASE iap OWNER iap_test"
  copy_from_other pg2
  start pg2
  wait_until "pg2 to stream synchronously from pg1" streams_synchronously pg1
  # Over the bridge, as the tests connect: the host learns both addresses before they do.
  for name in "${names[@]}"; do wait_until "$name to answer at $(address "$name")" answers "$name"; done
  echo "cluster: pg1 primary at $(address pg1), pg2 synchronous standby at $(address pg2)"
}

kill_hard() {
  running "$1" || return 0
  as_postgres "$bin/pg_ctl" -D "$(data "$1")" -m immediate -w stop >/dev/null
}

# The new primary cannot wait for a standby that is gone: it runs without a synchronous one
# until `rejoin` brings the other back (what an operator does when the standby is lost).
promote() {
  as_postgres "$bin/pg_ctl" -D "$(data "$1")" -w promote >/dev/null
  wait_until "$1 to accept writes" is_primary "$1"
  sql "$1" "ALTER SYSTEM SET synchronous_standby_names = ''"
  sql "$1" 'SELECT pg_reload_conf()' >/dev/null
  echo "cluster: $1 is the primary (no synchronous standby until the other rejoins)"
}

rejoin() {
  local primary
  primary=$(other "$1")
  kill_hard "$1"
  if [ -f "$(data "$1")/standby.signal" ]; then
    # It was the standby: its WAL is a prefix of the primary's, so it only needs to stream
    # again. (pg_rewind would first finish its recovery as a primary's, writing an end of
    # recovery that the primary's WAL does not have.)
    resume_streaming "$1" "$primary"
    return
  fi
  # pg_rewind reads the source's timeline from its control file, which a promotion updates
  # only at its next checkpoint. It needs wal_log_hints, and runs the crash recovery an
  # immediate stop left undone itself; when it cannot (the history is gone), a fresh copy does.
  sql "$primary" CHECKPOINT
  if ! as_postgres "$bin/pg_rewind" -D "$(data "$1")" \
    --source-server="host=$(sockets "$primary") port=5432 user=postgres dbname=postgres" >"$root/$1/rewind.log" 2>&1; then
    echo "cluster: pg_rewind failed ($(tail -1 "$root/$1/rewind.log")); copying $primary afresh" >&2
    copy_from_other "$1"
  fi
  configure_copy "$1"
  resume_streaming "$1" "$primary"
}

# Starts NAME as the standby of PRIMARY, which then waits for it again on every commit.
resume_streaming() {
  local primary=$2
  follow "$1"
  start "$1"
  sql "$primary" "ALTER SYSTEM RESET synchronous_standby_names"
  sql "$primary" 'SELECT pg_reload_conf()' >/dev/null
  wait_until "$1 to stream synchronously from $primary" streams_synchronously "$primary"
  echo "cluster: $1 is the synchronous standby of $primary"
}

status() {
  for name in "${names[@]}"; do
    if ! running "$name"; then
      echo "$name $(address "$name") stopped"
    elif is_primary "$name"; then
      echo "$name $(address "$name") primary"
    else
      echo "$name $(address "$name") standby"
    fi
  done
}

down() {
  for name in "${names[@]}"; do
    if [ -f "$(data "$name")/postmaster.pid" ]; then
      as_postgres "$bin/pg_ctl" -D "$(data "$name")" -m immediate -w -t 10 stop >/dev/null 2>&1 || true
    fi
    # Whatever is left in our own namespaces (a server whose pid file is gone) goes too.
    if ip netns list | grep -qw "iap-$name"; then
      ip netns pids "iap-$name" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
    fi
    scripts/netns.sh down "$name"
    # The next namespace at this address has another MAC: forget the old one at once.
    ip neigh del "$(address "$name")" dev iap-br0 2>/dev/null || true
  done
  rm -rf "$root"
  # The bridge is shared with the other clusters' namespaces: it goes with the last of them.
  if ip link show iap-br0 >/dev/null 2>&1 && [ -z "$(ip link show master iap-br0 2>/dev/null)" ]; then
    ip link del iap-br0 2>/dev/null || true
  fi
  echo "cluster: down"
}

url() {
  echo "postgres://iap_test:$app_password@$(address pg1):5432,$(address pg2):5432/iap?sslmode=disable&target_session_attrs=read-write"
}

case "${1:-}" in
up) up ;;
kill) kill_hard "$(address "$2" >/dev/null && echo "$2")" ;;
promote) promote "$(address "$2" >/dev/null && echo "$2")" ;;
rejoin) rejoin "$(address "$2" >/dev/null && echo "$2")" ;;
cut) scripts/netns.sh cut "$(address "$2" >/dev/null && echo "$2")" ;;
heal) scripts/netns.sh heal "$(address "$2" >/dev/null && echo "$2")" ;;
status) status ;;
url) url ;;
down) down ;;
*)
  sed -n '5,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 64
  ;;
esac

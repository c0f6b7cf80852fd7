#!/bin/sh
# PostgreSQL beside SQLite in one session: `iap-lab bench` count mode on SQLite, then on a new
# empty PostgreSQL database, in turn, `pairs` times for each receipt count; each pair prints
# both throughputs, their ratio and what the PostgreSQL server spent a receipt.
#
#   Benchmarks/postgres-ratio/run.sh .build/release/iap-lab [pairs] [receipts ...]
#   Benchmarks/postgres-ratio/run.sh .build/release/iap-lab 3 10000 50000
#
# Needs scripts/setup.sh --tests (RabbitMQ, and PostgreSQL with the iap_test role);
# IAP_TEST_DATABASE_URL names another server (its user must be able to create databases).
# Why in turn: on a shared machine the speed moves from minute to minute; a pair run back to
# back sees about the same machine, and the ratio is what is compared, never a figure alone.
set -eu
[ $# -ge 1 ] || { sed -n 2,9p "$0" >&2; exit 2; }
lab=$1
shift
pairs=3
if [ $# -gt 0 ]; then pairs=$1; shift; fi
[ $# -gt 0 ] || set -- 10000
case $pairs in '' | *[!0-9]* | 0) echo "pairs must be a whole number above 0, not '$pairs'" >&2; exit 2 ;; esac
[ -x "$lab" ] || { echo "no executable $lab" >&2; exit 1; }
admin=${IAP_TEST_DATABASE_URL:-postgres://iap_test:iap-test-only@127.0.0.1:5432/postgres?sslmode=disable}
server=${admin%/*}
database="iap_ratio_$$"
trap 'psql -q "$admin" -c "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1 || true' EXIT
work=$(mktemp -d /tmp/iap-postgres-ratio.XXXXXX)

# The end-to-end receipts/s of a report, and a process line's ms per receipt.
rate() { awk '/end to end \(webhook\)/ { print $5; exit }' "$1"; }
per_receipt() { awk -v name="$2" '$1 == name { print $3; exit }' "$1"; }

for receipts in "$@"; do
    pair=1
    while [ "$pair" -le "$pairs" ]; do
        "$lab" bench --receipts "$receipts" > "$work/sqlite.txt" 2>&1 || { cat "$work/sqlite.txt" >&2; exit 1; }
        psql -q "$admin" -c "CREATE DATABASE $database" >/dev/null
        "$lab" bench --receipts "$receipts" --database-url "$server/$database?sslmode=disable" \
            > "$work/postgres.txt" 2>&1 || { cat "$work/postgres.txt" >&2; exit 1; }
        psql -q "$admin" -c "DROP DATABASE $database" >/dev/null
        sqlite=$(rate "$work/sqlite.txt")
        postgres=$(rate "$work/postgres.txt")
        echo "$receipts receipts, pair $pair: SQLite $sqlite/s, PostgreSQL $postgres/s, ratio" \
            "$(awk -v a="$postgres" -v b="$sqlite" 'BEGIN { printf "%.2f", a / b }')," \
            "PostgreSQL server $(per_receipt "$work/postgres.txt" postgresql) ms a receipt"
        pair=$((pair + 1))
    done
done
rm -rf "$work"

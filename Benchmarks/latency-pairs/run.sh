#!/bin/sh
# Latency a backend feels, two builds in turn: `iap-lab bench` in rate mode at a fixed rate
# (half the saturated one), each build after the other, `pairs` times, for the stages as
# processes and for `iap up`, on SQLite and on a new PostgreSQL database each run. Each line
# is one run: the intake's (202) p50/p99 and commit-to-webhook p50/p99, in ms.
#
#   Benchmarks/latency-pairs/run.sh <before iap-lab> <after iap-lab> [pairs] [sqlite rate] [postgres rate]
#   Benchmarks/latency-pairs/run.sh /tmp/start/iap-lab .build/release/iap-lab 3 1300 950
#
# Why in turn and not at once: a latency is what one build sees alone on the machine; two at
# once would each see the other's load. Runs alternate so both see the same minutes.
# Needs scripts/setup.sh --tests (RabbitMQ, PostgreSQL with the iap_test role).
set -eu
[ $# -ge 2 ] || { sed -n 2,9p "$0" >&2; exit 2; }
before=$1 after=$2
pairs=${3:-3} sqlite_rate=${4:-1300} postgres_rate=${5:-950}
seconds=${IAP_LATENCY_SECONDS:-20}
for binary in "$before" "$after"; do [ -x "$binary" ] || { echo "no executable $binary" >&2; exit 1; }; done
case $pairs in '' | *[!0-9]* | 0) echo "pairs must be a whole number above 0, not '$pairs'" >&2; exit 2 ;; esac
admin=${IAP_TEST_DATABASE_URL:-postgres://iap_test:iap-test-only@127.0.0.1:5432/postgres?sslmode=disable}
server=${admin%/*}
database="iap_latency_$$"
work=$(mktemp -d /tmp/iap-latency-pairs.XXXXXX)
trap 'psql -q "$admin" -c "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

# "p50/p99" of a report's line.
quantiles() { awk -v line="$2" 'index($0, line) { printf "%s/%s", $(NF-2), $(NF-1); exit }' "$1"; }

one() { # build label, database, mode
    lab=$1 label=$2 db=$3 mode=$4
    set -- --seconds "$seconds"
    [ "$mode" = up ] && set -- "$@" --up
    if [ "$db" = postgres ]; then
        psql -q "$admin" -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database" >/dev/null
        set -- "$@" --rate "$postgres_rate" --database-url "$server/$database?sslmode=disable"
    else
        set -- "$@" --rate "$sqlite_rate"
    fi
    "$lab" bench "$@" >"$work/report" 2>&1 || { cat "$work/report" >&2; exit 1; }
    books=$(grep -q 'books: right' "$work/report" && echo "books right" || echo "BOOKS NOT RIGHT")
    printf '%-8s %-6s %-6s submit %s  webhook %s  %s\n' "$db" "$mode" "$label" \
        "$(quantiles "$work/report" 'submit (202)')" "$(quantiles "$work/report" 'end to end (webhook)')" "$books"
}

for db in sqlite postgres; do
    for mode in stages up; do
        pair=1
        while [ "$pair" -le "$pairs" ]; do
            one "$before" before "$db" "$mode"
            one "$after" after "$db" "$mode"
            pair=$((pair + 1))
        done
    done
done

#!/usr/bin/env bash
# Usage: scripts/bench-revenue.sh [TRANSACTIONS]   (default 1000000)
# The revenue reports over a year of history, on SQLite and on PostgreSQL, as docs/revenue.md
# records them:
#   1. `iap-lab bench revenue` writes TRANSACTIONS payments (and their refunds) over 365 days
#      into a fresh database, times the reports' reads and prints each one's query plan;
#   2. a real `iap intake` serves the console: each revenue page (30 days, 90 days, 12 months)
#      and its CSV asked five times with curl, the median printed; then read in headless
#      Chromium (Tests/ConsoleBrowser/revenue_charts.py), its euros checked against the ledger's;
#   3. `iap export revenue` writes a year and a month of it: the peak RSS of each (GNU time),
#      and the year's CSV read back by Python's csv to the ledger's totals.
# Needs scripts/setup.sh --tests (RabbitMQ, PostgreSQL) and a built iap and iap-lab (IAP_BINARY
# names another iap, e.g. .build/release/iap).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/intake-under-test.sh
transactions=${1:-1000000}
intake_under_test revenue-bench
admin_url=${IAP_TEST_DATABASE_URL:-postgres://iap_test:iap-test-only@127.0.0.1:5432/postgres?sslmode=disable}
bench_db="iap_revenue_bench_$$"
trap 'psql -q "$admin_url" -c "DROP DATABASE IF EXISTS $bench_db" >/dev/null 2>&1 || true; intake_under_test_cleanup' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

bench() {
  local backend=$1
  echo "== $backend: $transactions payments over 365 days"
  "$lab" bench revenue --transactions "$transactions" | tee "$work/$backend-bench.txt"

  local port operator="bench:bench-secret-0123456789"
  port=$(free_port)
  IAP_HTTP_HOST=127.0.0.1 IAP_HTTP_PORT="$port" IAP_API_TOKENS="bench-token-0123456789abcdef" \
    IAP_QUEUE_PREFIX="$prefix.$backend" IAP_CONSOLE_OPERATORS="$operator" IAP_LOG_LEVEL=warning \
    start_iap "$backend-intake.log" intake
  await_ready "$port" "$last_pid" "$backend-intake.log"
  local intake=$last_pid jar="$work/$backend.cookies" url="http://127.0.0.1:$port"
  curl -fs -o /dev/null -c "$jar" -H "Origin: $url" --data "name=bench&secret=bench-secret-0123456789" \
    "$url/console/login"
  for page in "revenue?window=30d" "revenue?window=90d" "revenue?window=12m" "revenue.csv?window=12m"; do
    local times=()
    for _ in 1 2 3 4 5; do
      times+=("$(curl -fs -o "$work/page" -b "$jar" -w '%{time_total}' "$url/console/$page")")
    done
    printf 'console: /console/%s: %s bytes, median %.1f ms (of 5)\n' "$page" "$(wc -c < "$work/page")" \
      "$(printf '%s\n' "${times[@]}" | median | awk '{ print $1 * 1000 }')"
  done
  # The same pages in headless Chromium (Tests/ConsoleBrowser/revenue_charts.py): drawn, and
  # their euros and CSV the ledger's.
  if command -v chromium >/dev/null; then
    read -r _ _ _ _ gross _ payments < <(grep '^window: 12m EUR ' "$work/$backend-bench.txt")
    mkdir -p "$work/artifacts"
    /usr/bin/python3 Tests/ConsoleBrowser/revenue_charts.py --url "$url" --reader "$operator" --currency EUR \
      --gross "$gross" --payments "$payments" --artifacts "$work/artifacts" | sed 's/^/chromium: /'
  fi
  kill "$intake"
  wait "$intake" 2>/dev/null || true

  local year_ago month_ago tomorrow
  year_ago=$(date -u -d '-400 days' +%F)
  month_ago=$(date -u -d '-30 days' +%F)
  tomorrow=$(date -u -d '+1 day' +%F)
  for span in "$year_ago" "$month_ago"; do
    /usr/bin/time -f '%M %e' -o "$work/time" "$iap" export revenue --since "$span" --until "$tomorrow" \
      > "$work/$backend-export.csv" 2> "$work/export.err"
    read -r rss seconds < "$work/time"
    printf 'export: since %s: %s lines, peak RSS %s KiB, %s s\n' "$span" "$(wc -l < "$work/$backend-export.csv")" \
      "$rss" "$seconds"
    [ "$span" = "$year_ago" ] || continue
    python3 - "$work/$backend-export.csv" "$work/$backend-bench.txt" <<'PY'
import csv, sys
sums = {}
with open(sys.argv[1], newline="") as f:
    for row in csv.DictReader(f):
        total = sums.setdefault(row["currency"], [0, 0])
        total[0] += int(row["gross"])
        total[1] += int(row["proceeds"])
ledger = {}
for line in open(sys.argv[2]):
    if line.startswith("totals: "):
        _, currency, _, gross, _, proceeds, *_ = line.split()
        ledger[currency] = [int(gross), int(proceeds)]
same = sums == ledger
print("export: csv module sums %s the ledger's totals: %s" % ("equal" if same else "DIFFER FROM", sorted(sums.items())))
sys.exit(0 if same else 1)
PY
  done
}

IAP_DB_PATH="$work/revenue.sqlite" bench sqlite
psql -q "$admin_url" -c "CREATE DATABASE $bench_db" >/dev/null
export IAP_DATABASE_URL="${admin_url%%/postgres\?*}/$bench_db?sslmode=disable"
"$iap" migrate >/dev/null
bench postgres

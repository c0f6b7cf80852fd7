#!/bin/sh
# Intake alone: durable 202s per second at 64 connections, the relay publishing to a real
# broker (no validator, so receipts wait in the validate queue).
#
#   swift build -c release --product iap
#   Benchmarks/intake/run.sh [receipts] [clients]
#
# Starts `iap intake` on a fresh database and queue prefix, posts the receipts with
# `iap-lab bench load --accept-only`, which also waits until the relay has marked every
# receipt published, then stops the intake and deletes the queues. Env: IAP (the binary
# serving the intake), LOADER (the binary posting; default IAP), IAP_DATABASE_URL (an empty
# PostgreSQL database to use instead of a fresh SQLite file).
set -eu
cd "$(dirname "$0")/../.."
IAP=${IAP:-.build/release/iap}
LOADER=${LOADER:-$IAP}
RECEIPTS=${1:-10000}
CLIENTS=${2:-64}
[ -x "$IAP" ] || { echo "no $IAP: run 'swift build -c release --product iap' first" >&2; exit 1; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

work=$(mktemp -d /tmp/iap-intake.XXXXXX)
[ -n "${IAP_DATABASE_URL:-}" ] || export IAP_DB_PATH="$work/iap.sqlite"
export IAP_QUEUE_PREFIX="bench.intake.$(basename "$work" | tr 'A-Z' 'a-z' | tr -cd 'a-z0-9')"
export IAP_HTTP_PORT=$(free_port)
export IAP_API_TOKENS=intake-token-0123456789
export IAP_LOG_LEVEL=${IAP_LOG_LEVEL:-warning}
# Every request carries the one token: the per-token limit would measure itself.
export IAP_RATE_LIMIT=off

"$IAP" migrate >/dev/null

"$IAP" intake 2>>"$work/intake.log" &
pid=$!
tries=0
until curl -sf "http://127.0.0.1:$IAP_HTTP_PORT/readyz" >/dev/null; do
    tries=$((tries + 1)); [ $tries -lt 300 ] || { echo "intake not ready, see $work" >&2; kill $pid; exit 1; }
    sleep 0.1
done
"$LOADER" bench load --accept-only --receipts "$RECEIPTS" --clients "$CLIENTS" || echo "run failed, logs in $work"
kill -TERM $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
"$LOADER" bench load --clean-up
rm -rf "$work"

#!/bin/sh
# Scaling figures: end-to-end receipts/s with 1, 2 and 4 validator processes against a
# slow stub store (250 ms per verify), plus one process at high concurrency.
#
#   swift build -c release --product iap
#   Benchmarks/scaling/run.sh [receipts] [latency-ms]
#
# Each run gets a fresh database and queue prefix: `iap-lab stub-store` out of process,
# `iap intake`, `iap fulfiller`, `iap notifier` (webhooks off) and N `iap validator`
# processes; `iap-lab bench load` posts the receipts (64 HTTP clients) and waits for the
# last credit. Needs the broker of IAP_AMQP_URL (default: loopback). Env: IAP (binary),
# RUNS ("processes:concurrency ..." pairs).
set -eu
cd "$(dirname "$0")/../.."
IAP=${IAP:-.build/release/iap}
LAB=${LAB:-$(dirname "$IAP")/iap-lab}
RECEIPTS=${1:-2000}
LATENCY=${2:-250}
RUNS=${RUNS:-"1:16 2:16 4:16 1:64"}
[ -x "$IAP" ] || { echo "no $IAP: run 'swift build -c release --product iap' first" >&2; exit 1; }
[ -x "$LAB" ] || { echo "no $LAB: run 'swift build -c release --product iap-lab' first" >&2; exit 1; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

echo "scaling: $RECEIPTS receipts per run, stub latency $LATENCY ms, $(nproc) cores"
for run in $RUNS; do
    processes=${run%%:*}
    concurrency=${run##*:}
    work=$(mktemp -d /tmp/iap-scaling.XXXXXX)
    export IAP_DB_PATH="$work/iap.sqlite"
    export IAP_QUEUE_PREFIX="bench.scaling.$(basename "$work" | tr 'A-Z' 'a-z' | tr -cd 'a-z0-9')"
    export IAP_HTTP_PORT=$(free_port)
    export IAP_API_TOKENS=scaling-token-0123456789
    export IAP_LOG_LEVEL=${IAP_LOG_LEVEL:-warning}
    stub_port=$(free_port)
    export IAP_VERIFY_URL="http://127.0.0.1:$stub_port/verifyReceipt"
    export IAP_VERIFY_SANDBOX_URL="http://127.0.0.1:$stub_port/sandbox/verifyReceipt"
    unset IAP_WEBHOOK_URL IAP_SHARED_SECRET || true

    pids=""
    "$LAB" stub-store --port "$stub_port" --latency-ms "$LATENCY" 2>>"$work/stub.log" & pids="$pids $!"
    "$IAP" intake 2>>"$work/intake.log" & pids="$pids $!"
    "$IAP" fulfiller 2>>"$work/fulfiller.log" & pids="$pids $!"
    "$IAP" notifier 2>>"$work/notifier.log" & pids="$pids $!"
    i=0
    while [ $i -lt "$processes" ]; do
        "$IAP" validator --concurrency "$concurrency" 2>>"$work/validator-$i.log" & pids="$pids $!"
        i=$((i + 1))
    done
    tries=0
    until curl -sf "http://127.0.0.1:$IAP_HTTP_PORT/readyz" >/dev/null; do
        tries=$((tries + 1)); [ $tries -lt 300 ] || { echo "intake not ready, see $work" >&2; exit 1; }
        sleep 0.1
    done
    sleep 1  # let every validator subscribe
    echo
    echo "== $processes validator process(es) x --concurrency $concurrency"
    "$LAB" bench load --receipts "$RECEIPTS" --clients 64 || echo "run failed, logs in $work"
    kill -TERM $pids 2>/dev/null || true
    wait $pids 2>/dev/null || true
    "$LAB" bench load --clean-up
    rm -rf "$work"
done

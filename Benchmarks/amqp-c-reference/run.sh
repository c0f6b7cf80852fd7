#!/usr/bin/env bash
# Builds and runs the C reference beside `iap-lab bench broker`, same parameters, one run.
# Usage: Benchmarks/amqp-c-reference/run.sh [messages] [size] [in-flight] [prefetch]
set -euo pipefail
cd "$(dirname "$0")/../.."
messages=${1:-100000}; size=${2:-1024}; inflight=${3:-2000}; prefetch=${4:-1000}
out=$(mktemp -d)
gcc -O2 -o "$out/hop" Benchmarks/amqp-c-reference/hop.c -lrabbitmq -lpthread
swift build -c release --product iap >/dev/null
"$out/hop" "$messages" "$size" "$inflight" "$prefetch"
.build/release/iap-lab bench broker --messages "$messages" --size "$size" --batch 250 \
  --batches $((inflight / 250)) --prefetch "$prefetch"
rm -rf "$out"

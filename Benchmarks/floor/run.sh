#!/usr/bin/env bash
# The floor under a receipt's cost on this machine: a chain of processes that only hand a
# message on (and, at two links, write and sync it), paced as `iap-lab bench --rate` paces
# receipts. See floor.c and BENCHMARKS.md ("The floor under a quiet receipt", issue 29, fifteenth session).
# Usage: Benchmarks/floor/run.sh [seconds per paced run] [directory for the synced files]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-15}; dir=${2:-${TMPDIR:-/tmp}}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gcc -O2 -Wall -Wextra -o "$out/floor" Benchmarks/floor/floor.c
# A receipt crosses sixteen times between the pipeline's seven processes (load generator,
# intake, broker, validator, stub store, fulfiller, notifier) and is synced twice: the
# intake's commit (about 36 KB of WAL) and the fulfiller's (about 56 KB).
hops=16; syncs=2,13
echo "one link, no sync (a hand-off):";    "$out/floor" 1 100 "$seconds"
echo "one link, a 36 KB sync:";            "$out/floor" 1 100 "$seconds" 1 36864 "$dir"
for rate in 100 400 0; do
  echo "the pipeline's crossings and syncs, rate ${rate/#0/saturated}:"
  "$out/floor" "$hops" "$rate" "$seconds" "$syncs" 36864 "$dir"
done

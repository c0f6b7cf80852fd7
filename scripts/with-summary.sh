#!/usr/bin/env bash
# Usage: scripts/with-summary.sh LOG COMMAND [ARGS...]
# Runs COMMAND with its output shown and kept in LOG. When it fails, its failures are said
# again at the very end (the failed tests, the issues they recorded, a crash's first line):
# CI's record keeps only the tail of a long run, and a rare failure seen only there must be
# readable from it.
set -uo pipefail
log=$1
shift
mkdir -p "$(dirname "$log")"
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo "with-summary: '$*' failed (exit $status); what failed, from $log:" >&2
  grep -aE '✘|recorded an issue|Expectation failed|Fatal error|error: |Crash|crashed' "$log" |
    grep -av 'passed after' | cut -c1-400 | tail -60 >&2
fi
exit "$status"

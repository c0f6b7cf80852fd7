#!/usr/bin/env bash
# Usage: scripts/with-deadline.sh SECONDS COMMAND [ARGS...]
# Runs COMMAND; if it is still running after SECONDS, prints where every thread of the
# test process stands (a hang is a bug to find, not a CI timeout to wait out), kills it
# and exits 124. The full stacks go to .build/hang-stacks.txt.
set -uo pipefail
deadline=$1
shift
"$@" &
pid=$!
waited=0
while kill -0 "$pid" 2>/dev/null; do
  if [ "$waited" -ge "$deadline" ]; then
    echo "with-deadline: '$*' still running after ${deadline} s: a hang; stacks follow" >&2
    stacks=.build/hang-stacks.txt
    for test in $(pgrep -f 'PackageTests.xctest'); do
      if command -v gdb >/dev/null; then
        timeout 300 gdb -p "$test" -batch -ex 'thread apply all bt' 2>/dev/null | swift demangle >>"$stacks"
      fi
    done
    # The frames in our own code, thread by thread: usually enough to name the hang.
    grep -E '^Thread|Tests\.|PipelineTesting\.|Store\.|Intake\.|Notifier\.|Fulfiller\.' "$stacks" 2>/dev/null |
      sed -E 's/ \(.*//' | cut -c1-200 | head -400 >&2
    pkill -9 -f 'PackageTests.xctest'
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    exit 124
  fi
  sleep 5
  waited=$((waited + 5))
done
wait "$pid"

#!/bin/sh
# Two builds compared on a noisy machine: both run `iap-lab bench` at the same time, so that
# both see the same machine, and each round prints the CPU seconds their stage processes spent
# on the same work. Each argument is a build's `iap-lab`, its `iap` beside it (the lab starts
# the stages from the `iap` in its own folder).
#
#   Benchmarks/side-by-side/run.sh /tmp/before/iap-lab /tmp/after/iap-lab [rounds] [-- bench options]
#   Benchmarks/side-by-side/run.sh /tmp/before/iap-lab /tmp/after/iap-lab 3 -- --receipts 10000
#
# Why: on a shared virtual machine one build's CPU per receipt varies 20-35 % from run to
# run, more than most changes move it; runs in turn compare the machine's moments, not the
# builds. Side by side each gets about half of it, and the sums below move together. They
# share the broker of IAP_AMQP_URL (each its own queue prefix), so the broker's CPU is left
# out: "stages" is intake, validator, fulfiller and notifier; "all" adds the stub store and
# the load generator; each stage's own seconds follow on a line of their own. Throughput is
# each one's under the other's load, for telling the two apart only. Every round must end
# with the books right, or the line says so.
set -eu
[ $# -ge 2 ] || { sed -n 2,9p "$0" >&2; exit 2; }
before=$1 after=$2
shift 2
rounds=3
if [ $# -gt 0 ] && [ "$1" != "--" ]; then rounds=$1; shift; fi
case $rounds in
    '' | *[!0-9]* | 0) echo "rounds must be a whole number above 0, not '$rounds'" >&2; exit 2 ;;
esac
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
[ $# -gt 0 ] || set -- --receipts 10000
for binary in "$before" "$after"; do
    [ -x "$binary" ] || { echo "no executable $binary" >&2; exit 1; }
done

work=$(mktemp -d /tmp/iap-side-by-side.XXXXXX)
trap 'rm -rf "$work"' EXIT

# CPU seconds of the named processes in a report of `iap-lab bench`.
seconds() {
    grep -E "^ +($2) " "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/) { s += $i; break } } END { printf "%.2f", s }'
}

summary() {
    report=$1
    stages=$(seconds "$report" 'intake|validator-[0-9]+|fulfiller|notifier')
    all=$(seconds "$report" 'intake|validator-[0-9]+|fulfiller|notifier|stub-store|bench: load, webhooks')
    rate=$(awk '/end to end/ { print $5 }' "$report")
    books=$(grep -q 'books: right' "$report" && echo "books right" || echo "BOOKS NOT RIGHT, see $report")
    printf 'stages %s s, all %s s, %s/s, %s' "$stages" "$all" "$rate" "$books"
}

round=1
while [ $round -le "$rounds" ]; do
    "$before" bench "$@" >"$work/before.$round" 2>&1 &
    first=$!
    "$after" bench "$@" >"$work/after.$round" 2>&1 &
    second=$!
    wait $first || true
    wait $second || true
    echo "round $round  before: $(summary "$work/before.$round")  |  after: $(summary "$work/after.$round")"
    for stage in intake 'validator-[0-9]+' fulfiller notifier stub-store 'bench: load, webhooks'; do
        printf '  %s %s/%s' "$(echo "$stage" | sed 's/-[[]0-9.*//; s/bench: load, webhooks/load/')" \
            "$(seconds "$work/before.$round" "$stage")" "$(seconds "$work/after.$round" "$stage")"
    done
    echo " s (before/after)"
    round=$((round + 1))
done
if grep -L 'books: right' "$work"/before.* "$work"/after.* | grep -q .; then
    trap - EXIT
    echo "the reports are kept in $work"
fi

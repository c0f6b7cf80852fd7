#!/bin/sh
# The intake under issue 25's siege: CONNECTIONS slow bodies from 127.0.0.1, each trickled
# one byte every 10 s and reopened when closed (Tests/Siege/slow_bodies.py, 10,000
# connections a process), while a second client on 127.0.0.2 asks for /healthz every 5 s.
# Prints the intake's RSS, descriptors and CPU: calm, at the siege's peak, and 2 s and 30 s
# after the attacker gives up.
#
#   swift build --product iap
#   Benchmarks/siege/run.sh [connections] [seconds]
#
# Env: IAP (binary, default .build/debug/iap) and any IAP_* setting of the intake, e.g.
# IAP_HTTP_MAX_CONNECTIONS_PER_ADDRESS=20000 to let one address hold as many connections as
# the file limit allows (as a load balancer's address may). Needs the broker of IAP_AMQP_URL.
set -eu
cd "$(dirname "$0")/../.."
IAP=${IAP:-.build/debug/iap}
CONNECTIONS=${1:-20000}
SECONDS_UNDER=${2:-60}
[ -x "$IAP" ] || { echo "no $IAP: run 'swift build --product iap' first" >&2; exit 1; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
rss_mb() { awk '/^VmRSS:/ { printf "%d", $2 / 1024 }' "/proc/$1/status"; }
files() { ls "/proc/$1/fd" | wc -l; }
cpu_s() { awk '{ printf "%.1f", ($14 + $15) / 100 }' "/proc/$1/stat"; }
health() {
    curl -s -o /dev/null --interface 127.0.0.2 --max-time 30 -w '%{http_code} in %{time_total} s' \
        "http://127.0.0.1:$IAP_HTTP_PORT/healthz" || true
}

work=$(mktemp -d /tmp/iap-siege.XXXXXX)
export IAP_DB_PATH="$work/iap.sqlite"
export IAP_QUEUE_PREFIX="bench.siege.$(basename "$work" | tr 'A-Z' 'a-z' | tr -cd 'a-z0-9')"
export IAP_HTTP_PORT=$(free_port)
export IAP_API_TOKENS=siege-token-0123456789
export IAP_LOG_LEVEL=${IAP_LOG_LEVEL:-warning}
"$IAP" intake 2>>"$work/intake.log" &
intake=$!
trap 'kill $intake 2>/dev/null; kill $attackers 2>/dev/null || true' EXIT
attackers=""
until curl -sf -o /dev/null "http://127.0.0.1:$IAP_HTTP_PORT/healthz"; do sleep 0.2; done
sleep 2
echo "siege: $CONNECTIONS slow bodies for $SECONDS_UNDER s, $("$IAP" --version 2>/dev/null || basename "$IAP"), \
file limit $(awk '/^Max open files/ { print $4 }' "/proc/$intake/limits"), $(nproc) cores"
echo "calm: RSS $(rss_mb $intake) MB, $(files $intake) descriptors, CPU $(cpu_s $intake) s"
cpu_before=$(cpu_s $intake)

left=$CONNECTIONS
while [ "$left" -gt 0 ]; do
    share=$(( left < 10000 ? left : 10000 ))
    left=$(( left - share ))
    python3 Tests/Siege/slow_bodies.py --port "$IAP_HTTP_PORT" --connections "$share" \
        --seconds $(( SECONDS_UNDER + 60 )) >>"$work/attacker.log" 2>&1 &
    attackers="$attackers $!"
done
peak_rss=0
peak_files=0
started=$(date +%s)
elapsed=0
while [ "$elapsed" -lt "$SECONDS_UNDER" ]; do
    sleep 5
    elapsed=$(( $(date +%s) - started ))
    rss=$(rss_mb $intake)
    open=$(files $intake)
    [ "$rss" -gt "$peak_rss" ] && peak_rss=$rss
    [ "$open" -gt "$peak_files" ] && peak_files=$open
    echo "  ${elapsed} s: RSS $rss MB, $open descriptors; /healthz from 127.0.0.2: $(health)"
done
cpu_held=$(cpu_s $intake)
kill $attackers 2>/dev/null || true
wait $attackers 2>/dev/null || true
attackers=""
echo "siege peak: RSS $peak_rss MB, $peak_files descriptors; CPU $(awk -v a="$cpu_held" -v b="$cpu_before" 'BEGIN { printf "%.1f", a - b }') s over $SECONDS_UNDER s"
sleep 2
echo "2 s after release: RSS $(rss_mb $intake) MB, $(files $intake) descriptors; /healthz: $(health)"
sleep 28
echo "30 s after release: RSS $(rss_mb $intake) MB, $(files $intake) descriptors"
[ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
# The queues the intake declared under this run's prefix.
if command -v rabbitmqctl >/dev/null 2>&1; then
    rabbitmqctl -q list_queues name 2>/dev/null | grep "^$IAP_QUEUE_PREFIX\." |
        xargs -r -n 1 rabbitmqctl -q delete_queue >/dev/null 2>&1 || true
fi

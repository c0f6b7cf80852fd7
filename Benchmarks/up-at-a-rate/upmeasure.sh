#!/bin/bash
# What `iap up` spends per receipt at a fixed rate (BENCHMARKS.md, "iap up: the notifier
# rung by the fulfiller"): starts `BIN up` in an empty directory, mints RATE*SECONDS receipts
# from its embedded stub, posts them at RATE a second (rateload.py), and reads the process's
# CPU and context switches (all threads) from /proc before and after. Webhooks go to
# hook.py, which must be running (python3 hook.py &).
# usage: upmeasure.sh BIN RATE SECONDS      (IAP_AMQP_URL: the broker, loopback by default)
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$1; RATE=$2; SECS=$3
D=$(mktemp -d); cd $D
export IAP_AMQP_URL=${IAP_AMQP_URL:-amqp://guest:guest@127.0.0.1:5672/} IAP_WEBHOOK_URL=http://127.0.0.1:9099/hook IAP_QUEUE_PREFIX=up$RANDOM
$BIN up > $D/up.log 2>&1 &
UP=$!
for i in $(seq 60); do curl -s 127.0.0.1:8080/readyz >/dev/null 2>&1 && break; sleep 0.5; done
sleep 2
exec 3> >(python3 "$HERE/rateload.py" $RATE $SECS > $D/load.log 2>&1)
LOADPID=$!
for i in $(seq 300); do grep -q minted $D/load.log 2>/dev/null && break; sleep 0.2; done
snap() { local cpu sw=0; cpu=$(awk '{print $14+$15}' /proc/$UP/stat); for t in /proc/$UP/task/*/status; do sw=$((sw + $(awk '/ctxt_switches/{s+=$2} END{print s}' $t))); done; echo "$cpu $sw"; }
A=$(snap); echo go >&3
for i in $(seq 600); do grep -q posted $D/load.log && break; sleep 0.2; done
sleep 3
B=$(snap)
N=$(awk '{print $2}' <<< "$(grep minted $D/load.log)")
read c0 s0 <<< "$A"; read c1 s1 <<< "$B"
echo "$BIN rate $RATE: receipts $N, cpu ms/receipt $(echo "scale=3; ($c1-$c0)*10/$N" | bc), switches/receipt $(echo "scale=1; ($s1-$s0)/$N" | bc)"
kill $UP; wait $UP 2>/dev/null; exec 3>&-; rm -rf $D

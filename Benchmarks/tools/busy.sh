#!/bin/bash
# Runs a command and prints the machine's busy share over its run (from /proc/stat).
read -r _ u n s i w q sq st _ < /proc/stat; b0=$((u+n+s+q+sq+st)); t0=$((b0+i+w))
"$@"
read -r _ u n s i w q sq st _ < /proc/stat; b1=$((u+n+s+q+sq+st)); t1=$((b1+i+w))
echo "machine busy: $(( 100*(b1-b0)/(t1-t0) ))%"

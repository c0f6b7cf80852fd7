#!/usr/bin/env bash
# Sets everything up and runs the whole pipeline in one process on its demo defaults: the
# lab's stub stores (`iap-lab stub-store`) as every store, a sample catalog, var/iap.sqlite.
# The product, `iap up`, runs against the stores its settings name; the stub writes those
# settings (var/stub.env: its endpoints and roots, the demo's token and console operator).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"

scripts/setup.sh
swift build --product iap
swift build --product iap-lab
mkdir -p var
settings=var/stub.env
rm -f "$settings"
.build/debug/iap-lab stub-store --port "${IAP_STUB_PORT:-8090}" --env-file "$settings" \
  --intake-url "http://${IAP_HTTP_HOST:-127.0.0.1}:${IAP_HTTP_PORT:-8080}" > var/stub-store.log 2>&1 &
stub=$!
trap 'kill "$stub" 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
  [ -s "$settings" ] && break
  kill -0 "$stub" 2>/dev/null || { cat var/stub-store.log >&2; exit 1; }
  sleep 0.1
done
[ -s "$settings" ] || { echo "up: the stub stores did not start; see var/stub-store.log" >&2; exit 1; }
# The stub's settings, under whatever this shell sets itself.
set -a
while IFS='=' read -r name _; do
  [ -n "${!name:-}" ] && continue
  eval "$(grep "^$name=" "$settings")"
done < <(sed 's/=.*/=/' "$settings")
set +a
echo "The lab's stub stores serve every store at http://127.0.0.1:${IAP_STUB_PORT:-8090} (log: var/stub-store.log);"
echo "the demo's backend token is dev-token-change-me-0001 (README: Try it)."
# Not exec: the trap stops the stub stores once `iap up` ends.
.build/debug/iap up "$@"

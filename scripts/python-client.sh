#!/usr/bin/env bash
# A Python client generated from the API's contract, docs/openapi.yaml, used against the real
# pipeline, as a backend would generate and use one (docs/api.md, "Generating a client"):
#   1. openapi-python-client (PyPI, pinned, in a venv under .build/) generates the client into
#      .build/python-client/iap_client with scripts/openapi-python-client.yaml; any warning
#      (a shape it could not process and dropped) fails the run;
#   2. starts the stub store and `iap intake`, `iap validator` and `iap fulfiller` on a fresh
#      SQLite file and queues of their own (scripts/intake-under-test.sh, as
#      scripts/schemathesis.sh does);
#   3. scripts/python_client_check.py submits a receipt the stub minted with the client's
#      `submit_receipt`, reads the account credited with `get_account`, and decodes a refusal
#      as the documented error.
# Exits non-zero on any failure. Needs scripts/setup.sh --tests (RabbitMQ, python3-venv) and a
# built iap (.build/debug/iap, else it builds it).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/intake-under-test.sh

venv=.build/python-client-venv
out=.build/python-client
intake_under_test python-client
pinned_venv "$venv" "openapi-python-client==0.29.1"

# Generated with the venv first on PATH, so that its ruff formats the code, as by default.
rm -rf "$out"
mkdir -p "$out"
PATH="$PWD/$venv/bin:$PATH" openapi-python-client generate --path docs/openapi.yaml --output-path "$out/iap_client" \
  --meta none --config scripts/openapi-python-client.yaml > "$work/generate.log" 2>&1 \
  || { cat "$work/generate.log" >&2; echo "python-client: FAILED: openapi-python-client failed" >&2; exit 1; }
if grep -qiE 'warning|unable to|error' "$work/generate.log"; then
  cat "$work/generate.log" >&2
  echo "python-client: FAILED: openapi-python-client warned (a shape of docs/openapi.yaml dropped?)" >&2
  exit 1
fi
echo "python-client: generated $out/iap_client from docs/openapi.yaml"

start_stub_store
port=$(free_port)
token="python-client-token-$RANDOM$RANDOM-0123456789"
export IAP_DB_PATH="$work/iap.sqlite" IAP_QUEUE_PREFIX="$prefix" IAP_LOG_LEVEL=warning \
  IAP_HTTP_HOST=127.0.0.1 IAP_HTTP_PORT="$port" IAP_API_TOKENS="$token" \
  IAP_VERIFY_URL="$stub_url/verifyReceipt" IAP_VERIFY_SANDBOX_URL="$stub_url/sandbox/verifyReceipt"
start_iap intake.log intake
intake_pid=$last_pid
await_ready "$port" "$intake_pid" intake.log
start_iap validator.log validator
start_iap fulfiller.log fulfiller
echo "python-client: iap intake, validator and fulfiller on 127.0.0.1:$port, queues $prefix.*"

status=0
PYTHONPATH="$out" "$venv/bin/python" scripts/python_client_check.py "http://127.0.0.1:$port" "$token" "$stub_url" \
  || status=1
if [ "$status" -ne 0 ]; then
  for log in intake validator fulfiller stub; do echo "--- $log" >&2; tail -n 20 "$work/$log.log" >&2; done
fi
exit "$status"
